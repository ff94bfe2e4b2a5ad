import assert from "node:assert/strict";
import type { AssistantMessage, ChatMessage, ToolDefinition } from "../harness/messages.ts";
import { BUILT_IN_SCENARIOS } from "../testing/scripted_provider.ts";
import {
  countCompletionTokens,
  countPromptTokens,
  countTokens,
  loadTokenizer,
} from "../harness/tokens.ts";
import {
  createScriptedProvider,
  scriptedFetch,
  type ScriptedProviderOptions,
} from "../testing/scripted_provider.ts";
import {
  DECLINED_ANSWER,
  DELETED_ANSWER,
  DELETED_TWICE_ANSWER,
  GIVE_UP_ANSWER,
  PLAN_ANSWER,
  scenarioNames,
  TIMEOUT_ANSWER,
} from "../testing/scenarios.ts";
import { parseProviderArgs } from "../testing/main.ts";

await loadTokenizer(); // the counting functions need the encoder loaded

const URL_CHAT = "http://reins.test/v1/chat/completions";
const TOOLS: ToolDefinition[] = [{
  type: "function",
  function: {
    name: "read_file",
    description: "Read a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
}];

// deno-lint-ignore no-explicit-any
type Json = any;

async function chat(
  body: Record<string, unknown>,
  init: { headers?: Record<string, string>; signal?: AbortSignal; url?: string } = {},
  options: ScriptedProviderOptions = {},
): Promise<Response> {
  return await createScriptedProvider(options).fetch(
    new Request(init.url ?? URL_CHAT, {
      method: "POST",
      headers: { "content-type": "application/json", ...init.headers },
      body: JSON.stringify(body),
      signal: init.signal,
    }),
  );
}

async function reply(model: string, messages: ChatMessage[]): Promise<Json> {
  const res = await chat({ model, messages, tools: TOOLS });
  assert.equal(res.status, 200);
  return await res.json();
}

/** Drives a scenario: each tool call is answered by `toolResult(name, args)`. */
async function drive(
  model: string,
  toolResult: (name: string, args: Json) => string,
  maxTurns = 6,
): Promise<{ calls: { id: string; name: string; args: Json }[]; answer: string | null }> {
  const messages: ChatMessage[] = [{ role: "user", content: "What is in errors.log?" }];
  const calls: { id: string; name: string; args: Json }[] = [];
  for (let turn = 0; turn < maxTurns; turn++) {
    const body = await reply(model, messages);
    const message = body.choices[0].message as AssistantMessage;
    messages.push(message);
    if (!message.tool_calls?.length) {
      assert.equal(body.choices[0].finish_reason, "stop");
      return { calls, answer: message.content };
    }
    assert.equal(body.choices[0].finish_reason, "tool_calls");
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments);
      calls.push({ id: call.id, name: call.function.name, args });
      const content = toolResult(call.function.name, args);
      messages.push({ role: "tool", tool_call_id: call.id, name: call.function.name, content });
    }
  }
  return { calls, answer: null };
}

const ok = () => "ok";
const names = (calls: { name: string; args: Json }[]) =>
  calls.map((c) => `${c.name} ${JSON.stringify(c.args)}`);

Deno.test("provider: plan answers after list_files and read_file", async () => {
  const { calls, answer } = await drive("plan", ok);
  assert.deepEqual(names(calls), ["list_files {}", 'read_file {"path":"errors.log"}']);
  assert.equal(answer, PLAN_ANSWER);
  assert.deepEqual(calls.map((c) => c.id), ["call_0_0", "call_1_0"]);
});

Deno.test("provider: runaway calls list_files every turn and never answers", async () => {
  const { calls, answer } = await drive("runaway", ok, 5);
  assert.equal(answer, null);
  assert.deepEqual(names(calls), Array(5).fill("list_files {}"));
});

Deno.test("provider: recover follows the tool error's hint to list_files", async () => {
  const { calls, answer } = await drive(
    "recover",
    (name, args) =>
      name === "read_file" && args.path === "timeout.log"
        ? "no such file: timeout.log. Call list_files to see what exists."
        : "ok",
  );
  assert.deepEqual(names(calls), [
    'read_file {"path":"timeout.log"}',
    "list_files {}",
    'read_file {"path":"errors.log"}',
  ]);
  assert.equal(answer, TIMEOUT_ANSWER);
});

Deno.test("provider: recover gives up when the tool error has no hint", async () => {
  const { calls, answer } = await drive("recover", () => "error: something broke");
  assert.deepEqual(names(calls), ['read_file {"path":"timeout.log"}']);
  assert.equal(answer, GIVE_UP_ANSWER);
});

Deno.test("provider: repeat issues the identical call twice with new ids", async () => {
  const { calls, answer } = await drive("repeat", ok);
  assert.deepEqual(names(calls), Array(2).fill('read_file {"path":"errors.log"}'));
  assert.notEqual(calls[0].id, calls[1].id);
  assert.equal(answer, TIMEOUT_ANSWER);
});

Deno.test("provider: destructive reports the deletion when it ran", async () => {
  const { calls, answer } = await drive("destructive", ok);
  assert.deepEqual(names(calls), ["list_files {}", 'delete_file {"path":"access.log"}']);
  assert.equal(answer, DELETED_ANSWER);
});

Deno.test("provider: destructive admits nothing was deleted when the user declined", async () => {
  const { answer } = await drive(
    "destructive",
    (name) => name === "delete_file" ? "The user declined this delete_file call." : "ok",
  );
  assert.equal(answer, DECLINED_ANSWER);
});

Deno.test("provider: destructive-twice deletes access.log twice", async () => {
  const { calls, answer } = await drive("destructive-twice", ok);
  assert.deepEqual(names(calls), Array(2).fill('delete_file {"path":"access.log"}'));
  assert.notEqual(calls[0].id, calls[1].id);
  assert.equal(answer, DELETED_TWICE_ANSWER);
});

Deno.test("provider: forbidden reads /etc/shadow every turn", async () => {
  const { calls, answer } = await drive("forbidden", () => "permission denied", 3);
  assert.equal(answer, null);
  assert.deepEqual(names(calls), Array(3).fill('read_file {"path":"/etc/shadow"}'));
});

Deno.test("provider: slow scans the archive and quotes the first line", async () => {
  const { calls, answer } = await drive("slow", () => "\n3 entries, 1.2 MB\nmore");
  assert.deepEqual(names(calls), ["scan_archive {}"]);
  assert.equal(answer, "Scanned the archive: 3 entries, 1.2 MB");
});

Deno.test("provider: echo answers the last user message verbatim", async () => {
  const body = await reply("echo", [
    { role: "user", content: "first" },
    { role: "assistant", content: "x" },
    { role: "user", content: "say <|endoftext|> ünïcode" },
  ]);
  assert.equal(body.choices[0].message.content, "say <|endoftext|> ünïcode");
  assert.equal(body.choices[0].message.tool_calls, undefined);
});

Deno.test("provider: the same request gets the same reply and call ids", async () => {
  const messages: ChatMessage[] = [{ role: "user", content: "go" }];
  const a = await reply("plan", messages);
  const b = await reply("plan", messages);
  assert.deepEqual(a.choices, b.choices);
  assert.equal(a.id, b.id);
});

Deno.test("provider: usage equals countPromptTokens and countCompletionTokens", async () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a careful agent." },
    { role: "user", content: "What is in errors.log?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "list_files", arguments: "{}" },
      }],
    },
    { role: "tool", tool_call_id: "c1", name: "list_files", content: "errors.log 120 B" },
  ];
  const body = await reply("plan", messages);
  const message = body.choices[0].message as AssistantMessage;
  assert.equal(body.usage.prompt_tokens, countPromptTokens(messages, TOOLS));
  assert.equal(body.usage.completion_tokens, countCompletionTokens(message));
  assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
  assert.ok(body.usage.prompt_tokens > countPromptTokens(messages)); // tools are counted
  assert.ok(body.usage.completion_tokens > 0);
});

Deno.test("tokens: counts are real, cached per message, and recounted after an edit", () => {
  assert.equal(countTokens("hello world"), 2);
  const message: ChatMessage = { role: "user", content: "hello world" };
  assert.equal(countPromptTokens([message]), 3 + (3 + 1 + 2));
  message.content = "hello world, hello world";
  assert.equal(countPromptTokens([message]), 3 + 3 + 1 + countTokens("hello world, hello world"));
  const copy = JSON.parse(JSON.stringify([message]));
  assert.equal(countPromptTokens(copy), countPromptTokens([message]));
});

Deno.test("provider: max_tokens cuts a text reply with finish_reason length", async () => {
  const long = "The worker timed out after thirty seconds while scanning the archive. ".repeat(5);
  for (const cap of ["max_tokens", "max_completion_tokens"]) {
    const res = await chat({
      model: "echo",
      messages: [{ role: "user", content: long }],
      [cap]: 7,
    });
    const body = await res.json();
    const content = body.choices[0].message.content as string;
    assert.equal(body.choices[0].finish_reason, "length");
    assert.ok(body.usage.completion_tokens <= 7 && body.usage.completion_tokens > 0);
    assert.equal(body.usage.completion_tokens, countTokens(content));
    assert.ok(long.startsWith(content) && content.length < long.length);
  }
});

Deno.test("provider: max_tokens drops tool calls that do not fit", async () => {
  const messages = [{ role: "user", content: "go" }];
  const res = await chat({ model: "plan", messages, max_tokens: 2 });
  const body = await res.json();
  assert.equal(body.choices[0].finish_reason, "length");
  assert.equal(body.choices[0].message.tool_calls, undefined);
  assert.ok(body.usage.completion_tokens <= 2);
  const roomy = await (await chat({ model: "plan", messages, max_tokens: 100 })).json();
  assert.equal(roomy.choices[0].finish_reason, "tool_calls");
});

async function streamed(model: string, messages: ChatMessage[]): Promise<Json> {
  const res = await chat({
    model,
    messages,
    tools: TOOLS,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const events = (await res.text()).split("\n\n").filter((e) => e).map((e) =>
    e.replace(/^data: /, "")
  );
  assert.equal(events.at(-1), "[DONE]");
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
  const message: Json = { role: "", content: null };
  let finish: string | null = null;
  let usage: Json;
  for (const chunk of chunks) {
    assert.equal(chunk.object, "chat.completion.chunk");
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const d = choice.delta;
    if (d.role) message.role = d.role;
    if (typeof d.content === "string") message.content = (message.content ?? "") + d.content;
    for (const t of d.tool_calls ?? []) {
      message.tool_calls ??= [];
      const slot = message.tool_calls[t.index] ??= {
        id: "",
        type: "function",
        function: { name: "", arguments: "" },
      };
      if (t.id) slot.id = t.id;
      if (t.function?.name) slot.function.name = t.function.name;
      slot.function.arguments += t.function?.arguments ?? "";
    }
    finish = choice.finish_reason ?? finish;
  }
  return { message, finish, usage, chunks: chunks.length };
}

Deno.test("provider: streaming SSE reassembles into the same message", async () => {
  const cases: [string, ChatMessage[]][] = [
    ["plan", [{ role: "user", content: "go" }, { role: "assistant", content: "x" }]],
    ["echo", [{ role: "user", content: "three little words" }]],
  ];
  for (const [model, messages] of cases) {
    const plain = await reply(model, messages);
    const s = await streamed(model, messages);
    assert.deepEqual(s.message, plain.choices[0].message);
    assert.equal(s.finish, plain.choices[0].finish_reason);
    assert.deepEqual(s.usage, plain.usage);
    assert.ok(s.chunks >= 3);
  }
});

Deno.test("provider: 429 carries Retry-After unless asked not to", async () => {
  const body = { model: "plan", messages: [{ role: "user", content: "go" }] };
  const res = await chat(body, { headers: { "x-reins-fault": "429", "x-reins-retry-after": "7" } });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "7");
  assert.equal((await res.json()).error.code, "rate_limit_exceeded");
  const dflt = await chat(body, {}, { fault: "429" });
  assert.equal(dflt.headers.get("retry-after"), "1");
  await dflt.body?.cancel();
  const none = await chat(body, { headers: { "x-reins-fault": "429-no-retry-after" } });
  assert.equal(none.status, 429);
  assert.equal(none.headers.get("retry-after"), null);
  await none.body?.cancel();
});

Deno.test("provider: faults give 500, 401, malformed and bad-shape bodies", async () => {
  const body = { model: "plan", messages: [{ role: "user", content: "go" }] };
  const get = (fault: string) => chat(body, { headers: { "x-reins-fault": fault } });
  assert.equal((await (await get("500")).json()).error.type, "server_error");
  assert.equal((await get("401")).status, 401);
  const malformed = await get("malformed");
  assert.equal(malformed.status, 200);
  await assert.rejects(() => malformed.json(), SyntaxError);
  const bad = await (await get("bad-shape")).json();
  assert.equal(bad.choices, undefined);
  assert.equal((await get("teapot")).status, 400);
});

Deno.test("provider: faults() can fail only the first requests and onRequest counts them", async () => {
  let seen = 0;
  const requests: { model: string; turn: number }[] = [];
  const options: ScriptedProviderOptions = {
    faults: () => seen++ < 2 ? "500" : undefined,
    onRequest: (info) => requests.push(info),
  };
  const body = { model: "plan", messages: [{ role: "user", content: "go" }] };
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    const res = await chat(body, {}, options);
    statuses.push(res.status);
    await res.body?.cancel();
  }
  assert.deepEqual(statuses, [500, 500, 200]);
  assert.deepEqual(requests, Array(3).fill({ model: "plan", turn: 0 }));
});

Deno.test("provider: an invalid body is a 400 with a clear message", async () => {
  const provider = createScriptedProvider();
  const notJson = await provider.fetch(new Request(URL_CHAT, { method: "POST", body: "{nope" }));
  assert.equal(notJson.status, 400);
  assert.match((await notJson.json()).error.message, /not valid JSON/);
  const res = await chat({ model: "plan", messages: [{ role: "robot", content: "x" }] });
  assert.equal(res.status, 400);
  const err = (await res.json()).error;
  assert.match(err.message, /messages\.0\.role/);
  assert.equal(err.type, "invalid_request_error");
  const noMessages = await chat({ model: "plan" });
  assert.equal(noMessages.status, 400);
  await noMessages.body?.cancel();
});

Deno.test("provider: /v1/models lists every scenario", async () => {
  const res = await createScriptedProvider().fetch(new Request("http://reins.test/v1/models"));
  const body = await res.json();
  assert.equal(body.object, "list");
  assert.deepEqual(body.data.map((m: Json) => m.id), Object.keys(BUILT_IN_SCENARIOS).sort());
  for (const name of scenarioNames()) assert.ok(Object.hasOwn(BUILT_IN_SCENARIOS, name), name);
  assert.ok(body.data.every((m: Json) => m.object === "model" && m.owned_by === "reins"));
  for (
    const name of [
      "plan",
      "runaway",
      "recover",
      "repeat",
      "destructive",
      "forbidden",
      "slow",
      "echo",
    ]
  ) {
    assert.ok(scenarioNames().includes(name), name);
  }
});

Deno.test("provider: an unknown scenario is a 404 naming the known ones", async () => {
  const res = await chat({ model: "gpt-9", messages: [{ role: "user", content: "hi" }] });
  assert.equal(res.status, 404);
  const err = (await res.json()).error;
  assert.equal(err.code, "model_not_found");
  assert.match(err.message, /gpt-9/);
  assert.match(err.message, /plan/);
});

Deno.test("provider: latency delays the reply, from option, query or header", async () => {
  const body = { model: "echo", messages: [{ role: "user", content: "hi" }] };
  for (
    const [init, options] of [
      [{}, { latencyMs: 60 }],
      [{ url: `${URL_CHAT}?latency_ms=60` }, {}],
      [{ headers: { "x-reins-latency-ms": "60" } }, { latencyMs: 0 }],
    ] as const
  ) {
    const t0 = performance.now();
    const res = await chat(body, init, options);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.ok(performance.now() - t0 >= 50, JSON.stringify(init));
  }
  const bad = await chat(body, { headers: { "x-reins-latency-ms": "soon" } });
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
});

Deno.test("provider: an aborted latency request finishes quickly and leaves no timer", async () => {
  const body = { model: "echo", messages: [{ role: "user", content: "hi" }] };
  const controller = new AbortController();
  const t0 = performance.now();
  const pending = chat(body, { signal: controller.signal }, { latencyMs: 10_000 });
  setTimeout(() => controller.abort(), 20);
  const res = await pending;
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(res.status, 499);
  await res.body?.cancel();
  // The op sanitizer fails this test if the 10 s timer were still pending.
});

Deno.test("provider: scriptedFetch answers in process and rejects on abort", async () => {
  const fetch = scriptedFetch({ latencyMs: 10_000 });
  const res = await fetch("http://reins.local/v1/models", { method: "GET" });
  assert.ok((await res.json()).data.length > 0);
  const controller = new AbortController();
  const pending = fetch(URL_CHAT, {
    method: "POST",
    body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "hi" }] }),
    signal: controller.signal,
  });
  controller.abort(new DOMException("stop", "AbortError"));
  await assert.rejects(pending, (e: Error) => e.name === "AbortError");
  const quick = scriptedFetch()(URL_CHAT, {
    method: "POST",
    body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "hey" }] }),
  });
  assert.equal((await (await quick).json()).choices[0].message.content, "hey");
});

Deno.test("provider main: flags parse, bad flags are rejected", () => {
  assert.deepEqual(parseProviderArgs([]), {
    port: 8788,
    hostname: "127.0.0.1",
    latencyMs: 0,
    chunkMs: 20,
    help: false,
  });
  assert.equal(parseProviderArgs(["--chunk-ms", "0"]).chunkMs, 0);
  assert.throws(() => parseProviderArgs(["--chunk-ms", "-1"]), /--chunk-ms must be/);
  assert.equal(parseProviderArgs(["--port=9001", "--latency-ms", "5"]).latencyMs, 5);
  assert.equal(parseProviderArgs(["--port=9001"]).port, 9001);
  assert.throws(() => parseProviderArgs(["--bogus"]), /unknown argument/);
  assert.throws(() => parseProviderArgs(["--port", "x"]), /--port/);
  assert.throws(() => parseProviderArgs(["--latency-ms"]), /needs a value/);
});
