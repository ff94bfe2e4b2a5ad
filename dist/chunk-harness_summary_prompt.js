import {
  adaptSchema,
  isPlainName
} from "./chunk-harness_schema_adapter.js";
import {
  cutText
} from "./chunk-harness_text.js";
import {
  AN_OBJECT,
  NON_NEGATIVE_NUMBER,
  issueLine
} from "./chunk-harness_schema_issue.js";
import {
  isObject
} from "./chunk-harness_is_object.js";
import {
  messageOf
} from "./chunk-harness_message_of.js";

// harness/summary_prompt.ts
var SUMMARY_PROMPT = "You compact the context of an agent run. Summarize the conversation below for the agent that will continue the task without seeing it again. Keep, stated exactly: every fact found in tool results that may matter later (names, numbers, paths, errors), the user's instructions and constraints, what has been done and what is left to do. Say how many times a repeated call was made instead of repeating it. If an earlier summary is given, fold it in. Write plain text, as short as the facts allow. Do not call tools.";
var MAX_LINE_CHARS = 2e4;
function oneLine(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS)}\u2026` : flat;
}
function lines(m) {
  switch (m.role) {
    case "system":
    case "user":
      return [
        `[${m.role}] ${oneLine(m.content)}`
      ];
    case "assistant": {
      const out = m.content ? [
        `[assistant] ${oneLine(m.content)}`
      ] : [];
      for (const c of m.tool_calls ?? []) {
        out.push(`[call ${c.id}] ${c.function.name} ${oneLine(c.function.arguments)}`);
      }
      return out;
    }
    case "tool":
      return [
        `[result ${m.tool_call_id}] ${oneLine(m.content)}`
      ];
  }
}
function summaryRequest(earlier, messages) {
  const parts = [];
  if (earlier !== null) parts.push("[earlier summary]", earlier.trim());
  parts.push("[conversation]", ...messages.flatMap(lines));
  return [
    {
      role: "system",
      content: SUMMARY_PROMPT
    },
    {
      role: "user",
      content: parts.join("\n")
    }
  ];
}

// harness/cost.ts
import { z } from "zod";
var DEFAULT_MAX_OUTPUT_TOKENS = 16384;
var DEFAULT_PRICES = Object.freeze({
  inputPerMillion: 2,
  outputPerMillion: 12
});
var POS_INT = "expected a positive integer";
var schemas;
var priceSchemas = (function priceSchemas() {
  if (schemas) return schemas;
  const nonNegNum = z.number({
    error: NON_NEGATIVE_NUMBER
  }).min(0, {
    error: NON_NEGATIVE_NUMBER
  });
  const posInt = z.int({
    error: POS_INT
  }).min(1, {
    error: POS_INT
  });
  const prices = z.strictObject({
    inputPerMillion: nonNegNum,
    outputPerMillion: nonNegNum,
    maxOutputTokens: posInt.optional(),
    contextTokens: posInt.optional(),
    cachedInputPerMillion: nonNegNum.optional(),
    cacheWritePerMillion: nonNegNum.optional()
  }, {
    error: AN_OBJECT
  });
  const table = z.strictObject({
    default: prices,
    models: z.record(z.string(), prices, {
      error: AN_OBJECT
    }).optional()
  }, {
    error: AN_OBJECT
  });
  return schemas = {
    prices,
    table
  };
});
var pricesSchema = (function pricesSchema() {
  return priceSchemas().prices;
});
var priceTableSchema = (function priceTableSchema() {
  return priceSchemas().table;
});
var pricesSchemaOf = (function pricesSchemaOf(value) {
  const isTable = typeof value === "object" && value !== null && ("default" in value || "models" in value);
  return isTable ? priceTableSchema() : pricesSchema();
});
var computeCost = (function computeCost(usage, prices = DEFAULT_PRICES) {
  const read = Math.min(Math.max(0, usage.cached_prompt_tokens ?? 0), usage.prompt_tokens);
  const write = Math.min(Math.max(0, usage.cache_write_tokens ?? 0), usage.prompt_tokens - read);
  const fresh = usage.prompt_tokens - read - write;
  return roundUsd((fresh * prices.inputPerMillion + read * (prices.cachedInputPerMillion ?? prices.inputPerMillion) + write * (prices.cacheWritePerMillion ?? prices.inputPerMillion) + usage.completion_tokens * prices.outputPerMillion) / 1e6);
});
var addUsd = (function addUsd(a, b) {
  return roundUsd(a + b);
});
var checkPrices = (function checkPrices(table, name = "prices") {
  if (table === void 0) return;
  const issue = pricesSchemaOf(table).safeParse(table).error?.issues[0];
  if (issue) throw new RangeError(issueLine(issue, name, table));
});
var pricesFor = (function pricesFor(table, model) {
  if (!table) return DEFAULT_PRICES;
  if ("inputPerMillion" in table) return table;
  return table.models?.[model] ?? table.default;
});
var roundUsd = (function roundUsd(usd) {
  return Math.round(usd * 1e9) / 1e9;
});

// harness/transcript_scan.ts
var TranscriptScan = class {
  #scans = /* @__PURE__ */ new WeakMap();
  #spec;
  /** A scan folding transcripts as `spec` says. */
  constructor(spec) {
    this.#spec = spec;
  }
  /** The fold of `messages`, reading only what was added since the last look. */
  of(messages, context) {
    const spec = this.#spec;
    let s = this.#scans.get(messages);
    if (!s || messages.length < s.read || messages[s.read - 1] !== s.last || spec.stale?.(s.value, s.read, context)) {
      s = {
        read: 0,
        last: void 0,
        value: spec.start()
      };
      this.#scans.set(messages, s);
    }
    for (; s.read < messages.length; s.read++) {
      const m = messages[s.read];
      spec.step(s.value, m, s.read, context);
      s.last = m;
    }
    return s.value;
  }
};

// harness/context_view.ts
var ELIDE_MIN_CHARS = 400;
function emptyContext() {
  return {
    summary: null,
    summaryTurns: 0,
    summarizedTo: 0,
    elidedTo: 0,
    compactions: 0,
    costUsd: 0,
    usage: {
      prompt_tokens: 0,
      completion_tokens: 0
    }
  };
}
function headLength(messages) {
  let i = 0;
  while (messages[i]?.role === "system") i++;
  return messages[i]?.role === "user" ? i + 1 : i;
}
var SUMMARY_OPENING = "[Summary of turns 1-";
function summaryMessage(context) {
  return {
    role: "user",
    content: `${SUMMARY_OPENING}${context.summaryTurns}, written to save context; the full transcript is kept in the run's record]
${context.summary ?? ""}`
  };
}
function summarizedTurnsOf(text) {
  if (!text.startsWith(SUMMARY_OPENING)) return 0;
  const n = parseInt(text.slice(SUMMARY_OPENING.length), 10);
  return Number.isInteger(n) && n > 0 ? n : 0;
}
function elidedStub(result, call) {
  const args = call ? ` ${call.function.arguments}` : "";
  return {
    ...result,
    content: `[result elided to save context: ${result.name}${args} returned ${result.content.length} characters. Call the tool again if you need them.]`
  };
}
var stubs = /* @__PURE__ */ new WeakMap();
function callOf(messages, i, id) {
  for (let j = i - 1; j >= 0; j--) {
    const m = messages[j];
    if (m?.role === "assistant" && m.tool_calls) {
      const call = m.tool_calls.find((c) => c.id === id);
      if (call) return call;
    }
  }
  return void 0;
}
function shown(messages, m, i, context) {
  if (m.role !== "tool" || i >= context.elidedTo || m.content.length < ELIDE_MIN_CHARS) return m;
  let stub = stubs.get(m);
  if (!stub) stubs.set(m, stub = elidedStub(m, callOf(messages, i, m.tool_call_id)));
  return stub;
}
function shownRange(messages, context, from, to) {
  return messages.slice(from, to).map((m, k) => shown(messages, m, from + k, context));
}
function elidable(messages, from, to) {
  let n = 0;
  for (let i = from; i < to; i++) {
    const m = messages[i];
    if (m?.role === "tool" && m.content.length >= ELIDE_MIN_CHARS) n++;
  }
  return n;
}
function contextView(messages, context) {
  if (!context) return messages;
  const head = headLength(messages);
  const out = messages.slice(0, head);
  if (context.summary !== null) out.push(summaryMessage(context));
  const from = Math.max(head, context.summarizedTo);
  return out.concat(shownRange(messages, context, from, messages.length));
}
function keptFrom(messages, from, keep) {
  let seen = 0;
  for (let i = messages.length - 1; i >= from; i--) {
    if (messages[i]?.role !== "assistant" || ++seen < keep) continue;
    let cut = i;
    while (cut - 1 >= from && messages[cut - 1]?.role === "user") cut--;
    return cut > from ? cut : null;
  }
  return null;
}
function turnsBetween(messages, from, to) {
  let n = 0;
  for (let i = from; i < to; i++) if (messages[i]?.role === "assistant") n++;
  return n;
}
function contextForPrefix(context, count) {
  if (!context) return void 0;
  if (context.summarizedTo <= count) {
    return {
      ...context,
      elidedTo: Math.min(context.elidedTo, count)
    };
  }
  return {
    ...context,
    summary: null,
    summaryTurns: 0,
    summarizedTo: 0,
    elidedTo: Math.min(context.elidedTo, count)
  };
}
function forkContext(context, count) {
  const cut = contextForPrefix(context, count);
  if (!cut || cut.summary === null && cut.elidedTo === 0) return void 0;
  return {
    ...emptyContext(),
    summary: cut.summary,
    summaryTurns: cut.summaryTurns,
    summarizedTo: cut.summarizedTo,
    elidedTo: cut.elidedTo
  };
}

// harness/output.ts
var MAX_OUTPUT_ISSUES = 20;
var MAX_ISSUE_CHARS = 300;
function outputFormat(schema) {
  return adaptOutput(schema).format;
}
function adaptOutput(schema) {
  const where = "run(state, options): options.output";
  let adapted;
  try {
    adapted = adaptSchema(schema, where);
  } catch (e) {
    if (e instanceof TypeError) throw e;
    const why = messageOf(e);
    throw new TypeError(`${where} cannot be expressed as JSON Schema: ${why}`);
  }
  const json = adapted.jsonSchema;
  const wrapped = json["type"] !== "object";
  const asked = wrapped ? {
    type: "object",
    properties: {
      value: json
    },
    required: [
      "value"
    ],
    additionalProperties: false
  } : json;
  const format = {
    name: "output",
    schema: asked,
    strict: isStrict(asked),
    wrapped,
    valueSchema: json
  };
  return {
    check: adapted.check,
    format
  };
}
function isStrict(s) {
  if (Array.isArray(s)) return s.every(isStrict);
  if (typeof s !== "object" || s === null) return true;
  const o = s;
  if (o["type"] === "object" || o["properties"]) {
    const keys = Object.keys(o["properties"] ?? {});
    const required = Array.isArray(o["required"]) ? o["required"] : [];
    if (o["additionalProperties"] !== false || keys.some((k) => !required.includes(k))) {
      return false;
    }
  }
  return Object.values(o).every(isStrict);
}
function checkAnswer(text, schema, format) {
  let data;
  try {
    data = JSON.parse(unfenced(text));
  } catch (e) {
    const what = text.trim() === "" ? "the answer is empty" : e.message;
    return {
      ok: false,
      issues: [
        {
          path: "(root)",
          message: `not JSON: ${what}`
        }
      ]
    };
  }
  return checkValue(data, schema, format);
}
function checkValue(data, schema, format) {
  const tries = format.wrapped && isValueWrapper(data) ? [
    data.value,
    data
  ] : [
    data
  ];
  let first = null;
  for (const candidate of tries) {
    const parsed = schema.safeParse(candidate);
    if (parsed.success) return {
      ok: true,
      value: parsed.data
    };
    first ??= {
      ok: false,
      issues: toIssues(parsed.error.issues)
    };
  }
  return first;
}
function isValueWrapper(data) {
  return isObject(data) && Object.keys(data).length === 1 && "value" in data;
}
function unfenced(text) {
  const m = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return m?.[1] ?? text;
}
function toIssues(issues) {
  const out = issues.slice(0, MAX_OUTPUT_ISSUES).map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: cutText(i.message, MAX_ISSUE_CHARS)
  }));
  const more = issues.length - out.length;
  const last = out.at(-1);
  if (more > 0 && last) last.message += ` (and ${more} more issues)`;
  return out;
}
function repairText(issues) {
  const lines2 = issues.map((i) => `- at ${i.path}: ${i.message}`);
  return `${REPAIR_PREFIX} ${issues.length === 1 ? "1 issue" : `${issues.length} issues`}:
${lines2.join("\n")}
Answer again with only the corrected JSON value, no other text.`;
}
var REPAIR_PREFIX = "Your answer does not match the required JSON Schema;";

// harness/call_ids.ts
var runUniqueIds = (function runUniqueIds(calls, transcript, turn) {
  const used = usedIds(transcript);
  const inReply = /* @__PURE__ */ new Set();
  return calls.map((c, i) => {
    const given = typeof c.id === "string" && c.id ? c.id : "";
    const plain = isPlainName(given, true);
    let id = plain ? given : `call_${turn}_${i}`;
    let wireId;
    if (given && !inReply.has(given) && (used.has(given) || !plain)) wireId = given;
    for (let n = 0; used.has(id) || inReply.has(id); n++) {
      id = `${plain ? given : "call"}_t${turn}_${i}${n ? `_${n}` : ""}`;
    }
    inReply.add(given);
    inReply.add(id);
    const fn = {
      name: String(c.function?.name ?? ""),
      arguments: String(c.function?.arguments ?? "")
    };
    return wireId !== void 0 ? {
      id,
      wireId,
      type: "function",
      function: fn
    } : {
      id,
      type: "function",
      function: fn
    };
  });
});
var callIds = new TranscriptScan({
  start: () => /* @__PURE__ */ new Set(),
  step(ids, m) {
    if (m.role !== "assistant") return;
    for (const c of m.tool_calls ?? []) {
      ids.add(c.id);
      if (c.wireId) ids.add(c.wireId);
    }
  }
});
var usedIds = (function usedIds(transcript) {
  return callIds.of(transcript, void 0);
});
var toWire = (function toWire(messages) {
  if (!anyRenamed(messages)) return messages;
  const wire = /* @__PURE__ */ new Map();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) if (c.wireId) wire.set(c.id, c.wireId);
  }
  return messages.map((m) => {
    if (m.role === "tool") {
      const id = wire.get(m.tool_call_id);
      return id === void 0 ? m : {
        ...m,
        tool_call_id: id
      };
    }
    if (m.role !== "assistant" || !m.tool_calls) return m;
    return {
      ...m,
      tool_calls: m.tool_calls.map(({ wireId, ...c }) => wireId ? {
        ...c,
        id: wireId
      } : c)
    };
  });
});
var renames = new TranscriptScan({
  start: () => ({
    renamed: false
  }),
  step(found, m) {
    found.renamed ||= m.role === "assistant" && m.tool_calls?.some((c) => !!c.wireId) === true;
  }
});
var anyRenamed = (function anyRenamed(messages) {
  return renames.of(messages, void 0).renamed;
});

export {
  DEFAULT_MAX_OUTPUT_TOKENS,
  pricesSchema,
  priceTableSchema,
  pricesSchemaOf,
  computeCost,
  addUsd,
  checkPrices,
  pricesFor,
  roundUsd,
  TranscriptScan,
  emptyContext,
  headLength,
  summarizedTurnsOf,
  shownRange,
  elidable,
  contextView,
  keptFrom,
  turnsBetween,
  forkContext,
  outputFormat,
  adaptOutput,
  checkAnswer,
  checkValue,
  repairText,
  REPAIR_PREFIX,
  runUniqueIds,
  toWire,
  SUMMARY_PROMPT,
  summaryRequest
};
