// @ts-self-types="../../testing/mod.ts"
import {
  REPAIR_PREFIX,
  SUMMARY_PROMPT,
  countCompletionTokens,
  countPromptTokens,
  createOpenAIModel,
  loadTokenizer,
  summarizedTurnsOf,
  truncateToTokens
} from "../chunk-harness_limits.js";
import {
  messageOf,
  sleep
} from "../chunk-harness_errors.js";

// testing/wire.ts
import { z } from "zod";
var textPart = z.object({
  type: z.string(),
  text: z.string().optional()
});
var content = z.union([
  z.string(),
  z.array(textPart)
]).nullable().optional();
var wireToolCall = z.object({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string(),
    arguments: z.string()
  })
});
var wireMessage = z.object({
  role: z.enum([
    "system",
    "developer",
    "user",
    "assistant",
    "tool"
  ]),
  content,
  name: z.string().optional(),
  tool_calls: z.array(wireToolCall).nullable().optional(),
  tool_call_id: z.string().optional()
}).refine((m) => m.role !== "tool" || m.tool_call_id !== void 0, {
  message: "a tool message needs tool_call_id"
});
var wireTool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional()
  })
});
var tokenCap = z.number().int().min(1).nullable().optional();
var responseFormat = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("text")
  }),
  z.object({
    type: z.literal("json_object")
  }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional()
    })
  })
]);
var chatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(wireMessage).min(1),
  tools: z.array(wireTool).nullable().optional(),
  max_tokens: tokenCap,
  max_completion_tokens: tokenCap,
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({
    include_usage: z.boolean().optional()
  }).nullable().optional(),
  response_format: responseFormat.nullable().optional()
});
function text(value) {
  if (value === null || value === void 0) return null;
  if (typeof value === "string") return value;
  return value.map((p) => p.text ?? "").join("");
}
function parseChatRequest(body) {
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`);
    return {
      error: `Invalid chat completions request: ${issues.join("; ")}`
    };
  }
  const b = parsed.data;
  const messages = b.messages.map((m) => {
    const c = text(m.content);
    if (m.role === "assistant") {
      const msg = {
        role: "assistant",
        content: c
      };
      if (m.tool_calls?.length) {
        msg.tool_calls = m.tool_calls.map((t) => ({
          id: t.id,
          type: "function",
          function: {
            name: t.function.name,
            arguments: t.function.arguments
          }
        }));
      }
      return msg;
    }
    if (m.role === "tool") {
      return {
        role: "tool",
        tool_call_id: m.tool_call_id ?? "",
        name: m.name ?? "",
        content: c ?? ""
      };
    }
    return {
      role: m.role,
      content: c ?? ""
    };
  });
  const tools = (b.tools ?? []).map((t) => ({
    type: "function",
    function: {
      name: t.function.name,
      description: t.function.description ?? "",
      parameters: t.function.parameters ?? {}
    }
  }));
  const caps = [
    b.max_tokens,
    b.max_completion_tokens
  ].filter((n) => n != null);
  return {
    model: b.model,
    messages,
    tools,
    maxTokens: caps.length ? Math.min(...caps) : void 0,
    stream: b.stream === true,
    includeUsage: b.stream_options?.include_usage === true,
    ...b.response_format ? {
      responseFormat: b.response_format
    } : {}
  };
}
function wireUsage(usage) {
  return {
    ...usage,
    total_tokens: usage.prompt_tokens + usage.completion_tokens
  };
}
function completionBody(c) {
  const message = {
    role: "assistant",
    content: c.message.content
  };
  if (c.message.tool_calls?.length) message["tool_calls"] = c.message.tool_calls;
  return {
    id: c.id,
    object: "chat.completion",
    created: c.created,
    model: c.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: c.finishReason
      }
    ],
    usage: wireUsage(c.usage)
  };
}
function pieces(s) {
  return (s.match(/\s*\S+\s*|\s+/g) ?? []).flatMap((p) => p.match(/[^]{1,8}/g) ?? []);
}
function streamEvents(c, includeUsage) {
  const head = {
    id: c.id,
    object: "chat.completion.chunk",
    created: c.created,
    model: c.model
  };
  const extra = includeUsage ? {
    usage: null
  } : {};
  const chunk = (delta, finish = null) => JSON.stringify({
    ...head,
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finish
      }
    ],
    ...extra
  });
  const out = [];
  out.push(chunk({
    role: "assistant",
    content: c.message.content === null ? null : ""
  }));
  for (const p of pieces(c.message.content ?? "")) out.push(chunk({
    content: p
  }));
  (c.message.tool_calls ?? []).forEach((call, index) => {
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    out.push(chunk({
      tool_calls: [
        {
          index,
          id: call.id,
          type: "function",
          function: {
            name: call.function.name,
            arguments: ""
          }
        }
      ]
    }));
    for (const part of [
      args.slice(0, half),
      args.slice(half)
    ]) {
      if (part) out.push(chunk({
        tool_calls: [
          {
            index,
            function: {
              arguments: part
            }
          }
        ]
      }));
    }
  });
  out.push(chunk({}, c.finishReason));
  if (includeUsage) out.push(JSON.stringify({
    ...head,
    choices: [],
    usage: wireUsage(c.usage)
  }));
  return [
    ...out,
    "[DONE]"
  ].map((d) => `data: ${d}

`);
}
function errorResponse(status, message, type, code, headers = {}) {
  return Response.json({
    error: {
      message,
      type,
      param: null,
      code
    }
  }, {
    status,
    headers
  });
}

// testing/faults.ts
var FAULTS = [
  "429",
  "429-no-retry-after",
  "500",
  "401",
  "malformed",
  "bad-shape"
];
function faultResponse(fault, req, model) {
  switch (fault) {
    case "429":
    case "429-no-retry-after": {
      const headers = {};
      if (fault === "429") headers["retry-after"] = req.headers.get("x-reins-retry-after") ?? "1";
      return errorResponse(429, "Rate limit reached (injected fault)", "rate_limit_error", "rate_limit_exceeded", headers);
    }
    case "500":
      return errorResponse(500, "The server had an error (injected fault)", "server_error", "internal_error");
    case "401":
      return errorResponse(401, "Incorrect API key provided (injected fault)", "invalid_request_error", "invalid_api_key");
    case "malformed":
      return new Response("{this is not json", {
        headers: {
          "content-type": "application/json"
        }
      });
    case "bad-shape":
      return Response.json({
        id: "chatcmpl-bad-shape",
        object: "chat.completion",
        model
      });
  }
}

// testing/scenarios.ts
import { z as z2 } from "zod";
function callId(turn, index = 0) {
  return `call_${turn}_${index}`;
}
function callTool(turn, name, args = {}) {
  return {
    content: null,
    tool_calls: [
      {
        id: callId(turn),
        name,
        args
      }
    ]
  };
}
function say(content2) {
  return {
    content: content2
  };
}
var PLAN_ANSWER = "errors.log mentions a timeout: worker 7 timed out after 30000 ms.";
var TIMEOUT_ANSWER = "errors.log mentions a timeout.";
var GIVE_UP_ANSWER = "I could not read the file, so I do not know.";
var DECLINED_ANSWER = "I did not delete anything: you declined the deletion.";
var DELETED_ANSWER = "Deleted access.log to free space.";
var DELETED_TWICE_ANSWER = "Deleted access.log twice.";
var SCANNED_PREFIX = "Scanned the archive: ";
var TIMEOUT_LOCATION = z2.object({
  file: z2.string().min(1),
  line: z2.number().int().positive()
});
var LOCATION_ANSWER = '{"file":"errors.log","line":12}';
var WRONG_TYPE_ANSWER = '{"file":"errors.log","line":"12"}';
var PROSE_ANSWER = "The timeout is in errors.log, on line 12.";
function repairsAsked(messages) {
  return messages.filter((m) => (m.role === "user" || m.role === "tool") && m.content.startsWith(REPAIR_PREFIX)).length;
}
function firstLine(text2) {
  const line = (text2 ?? "").split("\n").map((l) => l.trim()).find((l) => l.length > 0);
  return line ?? "(no output)";
}
function lastUserText(messages) {
  const m = messages.findLast((m2) => m2.role === "user");
  return m?.role === "user" ? m.content ?? "" : "";
}
var RECALL_TURNS = 16;
var RECALL_LOST_ANSWER = "I read errors.log first, but what it said is no longer in my context.";
var TIMEOUT_FACT = /worker 7 timed out after 30000 ms/;
function recall({ turn, messages }) {
  if (turn === 0) return callTool(turn, "read_file", {
    path: "errors.log"
  });
  if (turn < RECALL_TURNS) {
    return turn % 2 ? callTool(turn, "read_file", {
      path: "access.log"
    }) : callTool(turn, "list_files");
  }
  const texts = messages.map((m) => m.content ?? "");
  if (texts.some((t) => TIMEOUT_FACT.test(t))) return say(PLAN_ANSWER);
  if (texts.some((t) => /\[result elided[^\]]*"errors\.log"/.test(t))) {
    return callTool(turn, "read_file", {
      path: "errors.log"
    });
  }
  return say(RECALL_LOST_ANSWER);
}
var SCENARIOS = {
  plan: ({ turn }) => {
    if (turn === 0) return callTool(turn, "list_files");
    if (turn === 1) return callTool(turn, "read_file", {
      path: "errors.log"
    });
    return say(PLAN_ANSWER);
  },
  runaway: ({ turn }) => callTool(turn, "list_files"),
  recover: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(turn, "read_file", {
      path: "timeout.log"
    });
    if (!toolTexts.some((t) => /Call list_files/.test(t))) return say(GIVE_UP_ANSWER);
    if (turn === 1) return callTool(turn, "list_files");
    if (turn === 2) return callTool(turn, "read_file", {
      path: "errors.log"
    });
    return say(TIMEOUT_ANSWER);
  },
  repeat: ({ turn }) => {
    if (turn <= 1) return callTool(turn, "read_file", {
      path: "errors.log"
    });
    return say(TIMEOUT_ANSWER);
  },
  destructive: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(turn, "list_files");
    if (turn === 1) return callTool(turn, "delete_file", {
      path: "access.log"
    });
    const last = toolTexts.at(-1) ?? "";
    return say(/declined|rejected|denied/i.test(last) ? DECLINED_ANSWER : DELETED_ANSWER);
  },
  "destructive-twice": ({ turn }) => {
    if (turn <= 1) return callTool(turn, "delete_file", {
      path: "access.log"
    });
    return say(DELETED_TWICE_ANSWER);
  },
  forbidden: ({ turn }) => callTool(turn, "read_file", {
    path: "/etc/shadow"
  }),
  slow: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(turn, "scan_archive");
    return say(SCANNED_PREFIX + firstLine(toolTexts.at(-1)));
  },
  echo: ({ messages }) => say(lastUserText(messages)),
  recall,
  extract: ({ turn, messages }) => {
    if (turn === 0) return callTool(turn, "read_file", {
      path: "errors.log"
    });
    return say(repairsAsked(messages) === 0 ? WRONG_TYPE_ANSWER : LOCATION_ANSWER);
  },
  "extract-twice": ({ messages }) => {
    return say([
      PROSE_ANSWER,
      WRONG_TYPE_ANSWER
    ][repairsAsked(messages)] ?? LOCATION_ANSWER);
  },
  "extract-never": () => say(WRONG_TYPE_ANSWER)
};
function scenarioNames() {
  return Object.keys(SCENARIOS).sort();
}
function scenarioInput(messages) {
  let turn = 0;
  const toolTexts = [];
  for (const m of messages) {
    if (m.role === "assistant") turn++;
    else if (m.role === "tool") toolTexts.push(m.content);
    else if (m.role === "user") turn += summarizedTurnsOf(m.content);
  }
  return {
    turn,
    toolTexts,
    messages
  };
}

// testing/scripted_summarizer.ts
function isSummaryRequest(messages) {
  const first = messages[0];
  return first?.role === "system" && first.content === SUMMARY_PROMPT;
}
var MAX_LINE = 200;
var cut = (s) => s.length > MAX_LINE ? `${s.slice(0, MAX_LINE)}\u2026` : s;
function foldBullet(facts, users, line) {
  const [, user] = /^- user: (.*)$/.exec(line) ?? [];
  if (user !== void 0) return void users.push(user);
  const [, key, count, first] = /^- (.+?) \((\d+)x\): (.*)$/.exec(line) ?? [];
  if (key !== void 0 && first !== void 0) {
    facts.set(key, {
      count: Number(count),
      first,
      errors: []
    });
  }
  const [, error] = /^ {2}! (.*)$/.exec(line) ?? [];
  const last = [
    ...facts.values()
  ].at(-1);
  if (error !== void 0 && last) last.errors.push(error);
}
function addResult(facts, key, text2) {
  const f = facts.get(key) ?? {
    count: 0,
    first: "",
    errors: []
  };
  f.count++;
  const lines = text2.split(/ (?=\d{4}-\d{2}-\d{2}T)/);
  f.first = cut(lines[0] ?? "");
  for (const l of lines) {
    if (/\bERROR\b/.test(l) && !f.errors.includes(cut(l))) f.errors.push(cut(l));
  }
  facts.delete(key);
  facts.set(key, f);
}
function scriptedSummary(text2) {
  const facts = /* @__PURE__ */ new Map();
  const users = [];
  const calls = /* @__PURE__ */ new Map();
  let section = "";
  for (const line of text2.split("\n")) {
    if (line === "[earlier summary]" || line === "[conversation]") {
      section = line;
      continue;
    }
    if (section === "[earlier summary]") foldBullet(facts, users, line);
    const m = /^\[(user|call|result)(?: ([^\]]+))?\] (.*)$/.exec(line);
    if (section !== "[conversation]" || !m) continue;
    const [, kind, id = "", body = ""] = m;
    if (kind === "user") users.push(cut(body));
    else if (kind === "call") calls.set(id, body);
    else addResult(facts, calls.get(id) ?? "a call", body);
  }
  const out = [
    "Facts so far:",
    ...users.map((u) => `- user: ${u}`)
  ];
  for (const [key, f] of facts) {
    out.push(`- ${key} (${f.count}x): ${f.first}`, ...f.errors.map((e) => `  ! ${e}`));
  }
  return out.join("\n");
}

// testing/paced_stream.ts
function pacedStream(events, ms, signal) {
  const bytes = new TextEncoder();
  if (ms <= 0) return new Blob(events).stream();
  const stop = new AbortController();
  const both = AbortSignal.any([
    signal,
    stop.signal
  ]);
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      if (i > 1) await sleep(ms, both);
      controller.enqueue(bytes.encode(events[i++]));
      if (i === events.length) controller.close();
    },
    cancel() {
      stop.abort();
    }
  });
}
function latencyOf(req, fallback) {
  const raw = req.headers.get("x-reins-latency-ms") ?? new URL(req.url).searchParams.get("latency_ms");
  if (raw === null) return fallback ?? 0;
  const ms = Number(raw);
  return Number.isFinite(ms) && ms >= 0 && raw.trim() !== "" ? ms : `Invalid latency "${raw}": expected milliseconds >= 0`;
}

// testing/tree_scenarios.ts
var TIMEOUT_QUESTION = "Which file mentions a timeout?";
var NOTES_QUESTION = "What do the on-call notes say about the db pool?";
var RUNAWAY_QUESTION = "List the workspace until every file is accounted for.";
var SCAN_QUESTIONS = [
  "Scan the archive for timeouts.",
  "Scan the archive again to confirm."
];
var RUNAWAY_QUESTION_2 = "Keep listing the workspace, again and again.";
var DEEP_QUESTION = "Dig deeper: which file mentions a timeout, and why?";
var DEEP_SLOW_QUESTION = "Dig deeper into the archive.";
var CLEANUP_QUESTION = "Free some space: delete access.log.";
var SUMMARY_PREFIX = "Research found: ";
var DEEPER_PREFIX = "Deeper finding: ";
function firstUserText(messages) {
  const m = messages.find((m2) => m2.role === "user");
  return m?.role === "user" ? m.content : "";
}
function firstLine2(text2) {
  return (text2 ?? "").split("\n").map((l) => l.trim()).find((l) => l) ?? "(no output)";
}
function askResearch(turn, questions) {
  return {
    content: null,
    tool_calls: questions.map((question, i) => ({
      id: callId(turn, i),
      name: "research",
      args: {
        question
      }
    }))
  };
}
function asker(questions, prefix = SUMMARY_PREFIX) {
  return ({ turn, toolTexts }) => turn === 0 ? askResearch(turn, questions) : say(prefix + toolTexts.join(" | "));
}
function tree(root, children) {
  return (input) => {
    const q = firstUserText(input.messages);
    return (Object.hasOwn(children, q) ? children[q] : root)(input);
  };
}
var timeoutChild = ({ turn }) => {
  if (turn === 0) return callTool(turn, "list_files");
  if (turn === 1) return callTool(turn, "read_file", {
    path: "errors.log"
  });
  return say(PLAN_ANSWER);
};
var notesChild = ({ turn, toolTexts }) => {
  if (turn === 0) return callTool(turn, "list_files");
  if (turn === 1) return callTool(turn, "read_file", {
    path: "notes.txt"
  });
  const line = (toolTexts.at(-1) ?? "").split("\n").find((l) => /db pool/.test(l));
  return say(line ? `notes.txt says: ${line.replace(/^-\s*/, "")}` : "I could not read the notes.");
};
var scanChild = ({ turn, toolTexts }) => turn === 0 ? callTool(turn, "scan_archive") : say(SCANNED_PREFIX + firstLine2(toolTexts.at(-1)));
var cleanupChild = ({ turn, toolTexts }) => {
  if (turn === 0) return callTool(turn, "list_files");
  if (turn === 1) return callTool(turn, "delete_file", {
    path: "access.log"
  });
  return say(/declined|rejected|denied/i.test(toolTexts.at(-1) ?? "") ? DECLINED_ANSWER : DELETED_ANSWER);
};
var scanChildren = Object.fromEntries(SCAN_QUESTIONS.map((q) => [
  q,
  scanChild
]));
var TREE_SCENARIOS = {
  research: tree(asker([
    TIMEOUT_QUESTION,
    NOTES_QUESTION
  ]), {
    [TIMEOUT_QUESTION]: timeoutChild,
    [NOTES_QUESTION]: notesChild
  }),
  "research-runaway": tree(({ turn, toolTexts }) => turn === 0 ? askResearch(turn, [
    RUNAWAY_QUESTION
  ]) : say(`The research did not finish. ${toolTexts.at(-1) ?? ""}`.trim()), {
    [RUNAWAY_QUESTION]: ({ turn }) => callTool(turn, "list_files")
  }),
  "research-runaway-pair": tree(({ turn, toolTexts }) => turn === 0 ? askResearch(turn, [
    RUNAWAY_QUESTION,
    RUNAWAY_QUESTION_2
  ]) : say(`The research did not finish. ${toolTexts.join(" | ")}`.trim()), {
    [RUNAWAY_QUESTION]: ({ turn }) => callTool(turn, "list_files"),
    [RUNAWAY_QUESTION_2]: ({ turn }) => callTool(turn, "list_files")
  }),
  "research-slow": tree(asker(SCAN_QUESTIONS), scanChildren),
  "research-deep": tree(asker([
    DEEP_QUESTION
  ]), {
    [DEEP_QUESTION]: asker([
      TIMEOUT_QUESTION
    ], DEEPER_PREFIX),
    [TIMEOUT_QUESTION]: timeoutChild
  }),
  "research-deep-slow": tree(asker([
    DEEP_SLOW_QUESTION
  ]), {
    [DEEP_SLOW_QUESTION]: asker(SCAN_QUESTIONS, DEEPER_PREFIX),
    ...scanChildren
  }),
  "research-approval": tree(asker([
    CLEANUP_QUESTION
  ]), {
    [CLEANUP_QUESTION]: cleanupChild
  })
};

// testing/scripted_provider.ts
var BUILT_IN_SCENARIOS = Object.freeze({
  ...SCENARIOS,
  ...TREE_SCENARIOS
});
async function overWindow(request, window) {
  if (window === void 0) return null;
  await loadTokenizer();
  const tokens = countPromptTokens(request.messages, request.tools);
  if (tokens <= window) return null;
  return errorResponse(400, `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, "invalid_request_error", "context_length_exceeded");
}
function capReply(message, maxTokens) {
  const calls = message.tool_calls?.length ?? 0;
  if (maxTokens !== void 0 && countCompletionTokens(message) > maxTokens) {
    message.content = truncateToTokens(message.content ?? "", maxTokens);
    delete message.tool_calls;
    return "length";
  }
  return calls > 0 ? "tool_calls" : "stop";
}
function modelsResponse(names) {
  const created = Math.floor(Date.now() / 1e3);
  return Response.json({
    object: "list",
    data: names.map((id) => ({
      id,
      object: "model",
      created,
      owned_by: "reins"
    }))
  });
}
async function acceptChat(req, scenarios, latencyMs) {
  let body;
  try {
    body = await req.json();
  } catch {
    return errorResponse(400, "Request body is not valid JSON", "invalid_request_error", "invalid_json");
  }
  const request = parseChatRequest(body);
  if ("error" in request) {
    return errorResponse(400, request.error, "invalid_request_error", "invalid_request");
  }
  const scenario = Object.hasOwn(scenarios, request.model) ? scenarios[request.model] : void 0;
  if (!scenario) {
    const known = Object.keys(scenarios).sort().join(", ");
    const message = `The model "${request.model}" does not exist. Known scenarios: ${known}`;
    return errorResponse(404, message, "invalid_request_error", "model_not_found");
  }
  const latency = latencyOf(req, latencyMs);
  if (typeof latency === "string") {
    return errorResponse(400, latency, "invalid_request_error", "invalid_latency");
  }
  const header = req.headers.get("x-reins-fault");
  if (header !== null && !FAULTS.includes(header)) {
    const message = `Unknown fault "${header}". Known faults: ${FAULTS.join(", ")}`;
    return errorResponse(400, message, "invalid_request_error", "invalid_fault");
  }
  return {
    request,
    scenario,
    latency,
    header
  };
}
async function scriptedCompletion(request, scenario, input) {
  await loadTokenizer();
  let reply;
  try {
    reply = isSummaryRequest(request.messages) ? say(scriptedSummary(request.messages.at(-1)?.content ?? "")) : scenario(input);
  } catch (e) {
    throw new ScenarioFailed(e);
  }
  const message = {
    role: "assistant",
    content: reply.content
  };
  if (reply.tool_calls?.length) {
    message.tool_calls = reply.tool_calls.map((t) => ({
      id: t.id,
      type: "function",
      function: {
        name: t.name,
        arguments: JSON.stringify(t.args)
      }
    }));
  }
  const finishReason = capReply(message, request.maxTokens);
  return {
    id: `chatcmpl-${request.model}-${input.turn}`,
    created: Math.floor(Date.now() / 1e3),
    model: request.model,
    message,
    finishReason,
    usage: {
      prompt_tokens: countPromptTokens(request.messages, request.tools),
      completion_tokens: countCompletionTokens(message)
    }
  };
}
async function chatResponse(req, scenarios, options) {
  const accepted = await acceptChat(req, scenarios, options.latencyMs);
  if (accepted instanceof Response) return accepted;
  const { request, scenario, latency, header } = accepted;
  const input = scenarioInput(request.messages);
  const info = {
    model: request.model,
    turn: input.turn
  };
  if (request.responseFormat) info.responseFormat = request.responseFormat;
  options.onRequest?.(info);
  if (latency > 0) await sleep(latency, req.signal);
  const fault = header ?? options.faults?.(info) ?? options.fault;
  if (fault) return faultResponse(fault, req, request.model);
  const refused = await overWindow(request, options.contextTokens);
  if (refused) return refused;
  const completion = await scriptedCompletion(request, scenario, input);
  if (!request.stream) return Response.json(completionBody(completion));
  const events = streamEvents(completion, request.includeUsage);
  const chunkMs = options.chunkMs ?? 0;
  const body = chunkMs > 0 ? pacedStream(events, chunkMs, req.signal) : new Blob(events).stream();
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache"
    }
  });
}
var ScenarioFailed = class extends Error {
  constructor(cause) {
    super(`the scenario failed: ${messageOf(cause)}`, {
      cause
    });
  }
};
function errorOf(err, req) {
  if (err instanceof ScenarioFailed) {
    const message2 = `Scripted provider: ${err.message}`;
    return errorResponse(400, message2, "invalid_request_error", "scenario_error");
  }
  if (req.signal.aborted) {
    return errorResponse(499, "The client closed the request", "client_closed", "aborted");
  }
  const message = messageOf(err);
  return errorResponse(500, `Scripted provider error: ${message}`, "server_error", "internal_error");
}
function createScriptedProvider(options = {}) {
  const scenarios = {
    ...BUILT_IN_SCENARIOS,
    ...options.scenarios
  };
  const route = (req) => {
    const { pathname } = new URL(req.url);
    if ((req.method === "GET" || req.method === "HEAD") && pathname === "/v1/models") {
      return modelsResponse(Object.keys(scenarios).sort());
    }
    if (req.method === "POST" && pathname === "/v1/chat/completions") {
      return chatResponse(req, scenarios, options);
    }
    const message = `Unknown route ${req.method} ${pathname}`;
    return errorResponse(404, message, "invalid_request_error", "unknown_route");
  };
  return {
    async fetch(request) {
      try {
        return await route(request);
      } catch (err) {
        return errorOf(err, request);
      }
    }
  };
}
function scriptedFetch(options = {}) {
  const provider = createScriptedProvider(options);
  return async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await provider.fetch(request);
    if (request.signal.aborted) {
      await response.body?.cancel();
      throw request.signal.reason;
    }
    return response;
  };
}

// testing/scripted_model.ts
var SCRIPTED_BASE_URL = "http://scripted.reins.local/v1";
function scriptedModel(scenario, options = {}) {
  const { maxRetries, retryBaseMs, stream, ...provider } = options;
  const model = createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: scenario,
    provider: "reins.scripted",
    fetch: scriptedFetch(provider),
    maxRetries,
    retryBaseMs,
    stream
  });
  played.set(model, scenario);
  return model;
}
var played = /* @__PURE__ */ new WeakMap();

// testing/script_agents.ts
function taskOf(messages) {
  const first = messages.find((m) => m.role === "user");
  return first?.role === "user" ? first.content : "";
}
function instructionsByName(agents, into = /* @__PURE__ */ new Map()) {
  for (const a of agents) {
    const known = into.get(a.name);
    if (known !== void 0 && known !== a.instructions) {
      throw new TypeError(`scriptAgents: two agents are named "${a.name}"`);
    }
    into.set(a.name, a.instructions);
    instructionsByName(a.agents ?? [], into);
  }
  return into;
}
function scriptAgents(agents, scripts) {
  const byInstructions = /* @__PURE__ */ new Map();
  for (const [name, instructions] of instructionsByName(agents)) {
    byInstructions.set(instructions, name);
  }
  for (const name of Object.keys(scripts)) {
    if (![
      ...byInstructions.values()
    ].includes(name)) {
      throw new TypeError(`scriptAgents: a script for "${name}", which is none of the agents`);
    }
  }
  for (const name of byInstructions.values()) {
    if (!Object.hasOwn(scripts, name)) {
      throw new TypeError(`scriptAgents: no script for agent "${name}" (give every agent of the tree one; one that must not be asked: () => { throw new Error("not asked") })`);
    }
  }
  return (input) => {
    const system = input.messages.find((m) => m.role === "system");
    const name = system?.role === "system" ? byInstructions.get(system.content) : void 0;
    if (name === void 0) {
      throw new Error("scriptAgents: the request's system message is none of the agents' instructions");
    }
    const script = Object.hasOwn(scripts, name) ? scripts[name] : void 0;
    if (!script) throw new Error(`scriptAgents: no script for agent "${name}"`);
    return script(input);
  };
}
export {
  FAULTS,
  SCENARIOS,
  callId,
  callTool,
  createScriptedProvider,
  isSummaryRequest,
  say,
  scenarioNames,
  scriptAgents,
  scriptedFetch,
  scriptedModel,
  scriptedSummary,
  taskOf
};
