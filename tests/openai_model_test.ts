import assert from "node:assert/strict";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { ConfigError, modelFromEnv } from "../runtime/config.ts";
import type { OpenAIModelOptions } from "../openai/openai_model.ts";
import { ModelError } from "../harness/errors.ts";
import { countCompletionTokens, countPromptTokens, loadTokenizer } from "../harness/tokens.ts";
import type { ModelRequest } from "../harness/model.ts";
import type { ToolDefinition } from "../harness/messages.ts";

await loadTokenizer(); // the counting functions need the encoder loaded

const BASE = "http://fake.test/v1";
const URL_ = `${BASE}/chat/completions`;
const REQ: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };
const TOOL: ToolDefinition = {
  type: "function",
  function: { name: "read_file", description: "Reads a file", parameters: { type: "object" } },
};
const CALL = { id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } };
const GOOD = {
  model: "fake-1",
  choices: [{
    finish_reason: "tool_calls",
    message: { role: "assistant", content: "Reading it.", tool_calls: [CALL] },
  }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
};

interface Call {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
  signal: AbortSignal;
}
type Fake = { fetch: typeof fetch; calls: Call[] };

/** An in-process endpoint: `script(n, call)` answers attempt number `n` (from 1). */
function endpoint(script: (n: number, call: Call) => Response | Promise<Response>): Fake {
  const calls: Call[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const body = JSON.parse(String(init?.body));
    calls.push({ url: String(input), headers, body, signal: init!.signal! });
    return await script(calls.length, calls[calls.length - 1]);
  };
  return { fetch, calls };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });
const status = (code: number, body = "", headers: Record<string, string> = {}) =>
  new Response(body, { status: code, headers });
const reply = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  json({ choices: [{ finish_reason: "stop", message }], ...extra });
const hang = (signal: AbortSignal) =>
  new Promise<Response>((_, reject) =>
    signal.addEventListener("abort", () => reject(signal.reason), { once: true })
  );
/** A model on the fake endpoint; retries are fast unless `extra` says otherwise. */
const mk = (fake: Fake, extra: Partial<OpenAIModelOptions> = {}) =>
  // Plain requests: these tests are about the non-streaming call (streaming_model_test.ts streams).
  createOpenAIModel({
    baseUrl: BASE,
    model: "m",
    fetch: fake.fetch,
    retryBaseMs: 1,
    stream: false,
    ...extra,
  });
const live = () => new AbortController().signal;

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail("expected a rejection");
}

async function modelError(p: Promise<unknown>, kind: ModelError["kind"]): Promise<ModelError> {
  const e = await failure(p);
  assert.ok(e instanceof ModelError, `expected ModelError, got ${e}`);
  assert.equal(e.kind, kind, e.message);
  return e;
}

Deno.test("a good reply is parsed: content, tool_calls, usage, finish reason, model", async () => {
  const fake = endpoint(() => json(GOOD));
  const r = await mk(fake).complete(REQ, live());
  assert.deepEqual(r.message, GOOD.choices[0].message);
  assert.deepEqual(r.usage, { prompt_tokens: 12, completion_tokens: 7 });
  assert.equal(r.finishReason, "tool_calls");
  assert.equal(r.model, "fake-1");
  assert.equal(fake.calls.length, 1);
});

Deno.test("the request is POSTed to baseUrl/chat/completions with model, messages, auth", async () => {
  const fake = endpoint(() => json(GOOD));
  const headers = { "x-extra": "yes" };
  const model = mk(fake, { baseUrl: `${BASE}/`, apiKey: "sk-1", headers });
  await model.complete(REQ, live());
  await model.complete({ ...REQ, tools: [TOOL], maxTokens: 64 }, live());
  await mk(fake).complete(REQ, live());
  const [plain, full, keyless] = fake.calls;
  assert.equal(plain.url, URL_);
  assert.equal(plain.headers.get("authorization"), "Bearer sk-1");
  assert.equal(plain.headers.get("x-extra"), "yes");
  assert.deepEqual(plain.body, { model: "m", messages: REQ.messages });
  const expected = { model: "m", messages: REQ.messages, tools: [TOOL], max_tokens: 64 };
  assert.deepEqual(full.body, expected);
  assert.equal(keyless.headers.get("authorization"), null);
});

Deno.test("tolerated: missing content is null, object arguments are stringified", async () => {
  const call = { id: "c1", function: { name: "f", arguments: { a: 1 } } };
  const fake = endpoint(() => reply({ tool_calls: [call] }, { usage: GOOD.usage }));
  const r = await mk(fake).complete(REQ, live());
  assert.equal(r.message.content, null);
  assert.deepEqual(r.message.tool_calls, [
    { id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
  ]);
});

Deno.test("missing usage is counted locally", async () => {
  const fake = endpoint(() => reply({ role: "assistant", content: "hello there" }));
  const req = { ...REQ, tools: [TOOL] };
  const r = await mk(fake).complete(req, live());
  assert.equal(r.usage.prompt_tokens, countPromptTokens(req.messages, req.tools));
  assert.equal(r.usage.completion_tokens, countCompletionTokens(r.message));
  assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0);
  assert.equal(r.finishReason, "stop");
});

Deno.test("429 with Retry-After: 1 waits about a second, then succeeds", async () => {
  const fake = endpoint((n) => n === 1 ? status(429, "", { "retry-after": "1" }) : json(GOOD));
  const t0 = performance.now();
  await mk(fake).complete(REQ, live());
  assert.ok(performance.now() - t0 >= 900, `waited only ${performance.now() - t0} ms`);
  assert.equal(fake.calls.length, 2);
});

Deno.test("Retry-After is capped by maxRetryAfterMs; an HTTP date is understood", async () => {
  const past = new Date(Date.now() - 5000).toUTCString();
  const fake = endpoint((n) =>
    n === 3 ? json(GOOD) : status(429, "", { "retry-after": n === 1 ? "60" : past })
  );
  const t0 = performance.now();
  await mk(fake, { retryBaseMs: 5000, maxRetryAfterMs: 50 }).complete(REQ, live());
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(fake.calls.length, 3);
});

Deno.test("429 without Retry-After backs off exponentially, then succeeds", async () => {
  const fake = endpoint((n) => n <= 2 ? status(429, "busy") : json(GOOD));
  const t0 = performance.now();
  await mk(fake, { retryBaseMs: 40 }).complete(REQ, live());
  // Jittered waits are at least half of 40 ms, then of 80 ms.
  assert.ok(performance.now() - t0 >= 55, `waited only ${performance.now() - t0} ms`);
  assert.equal(fake.calls.length, 3);
});

Deno.test("429 on every attempt fails rate_limited after maxRetries+1 attempts", async () => {
  const fake = endpoint(() => status(429, "quota", { "retry-after": "0.01" }));
  const e = await modelError(mk(fake, { maxRetries: 2 }).complete(REQ, live()), "rate_limited");
  assert.equal(e.status, 429);
  assert.equal(e.message, `429 Too Many Requests from ${URL_} after 3 attempts: quota`);
  assert.equal(fake.calls.length, 3);
});

Deno.test("500 on every attempt fails server after maxRetries+1 attempts, naming URL and body", async () => {
  const fake = endpoint(() => status(500, "boom ".repeat(100)));
  const e = await modelError(mk(fake).complete(REQ, live()), "server");
  assert.equal(fake.calls.length, 4);
  assert.equal(e.status, 500);
  const body = "boom ".repeat(40);
  assert.equal(e.message, `500 Internal Server Error from ${URL_} after 4 attempts: ${body}`);
});

Deno.test("a 503 followed by a good reply succeeds", async () => {
  const fake = endpoint((n) => n === 1 ? status(503) : json(GOOD));
  assert.equal((await mk(fake).complete(REQ, live())).model, "fake-1");
  assert.equal(fake.calls.length, 2);
});

Deno.test("401 and 403 fail auth after exactly one attempt", async () => {
  const fake = endpoint(() => json({ error: { message: "bad key" } }, 401));
  const e = await modelError(mk(fake).complete(REQ, live()), "auth");
  assert.equal(e.message, `401 Unauthorized from ${URL_}: check LLM_API_KEY`);
  assert.equal(fake.calls.length, 1);
  const forbidden = endpoint(() => status(403, "no"));
  await modelError(mk(forbidden).complete(REQ, live()), "auth");
  assert.equal(forbidden.calls.length, 1);
});

Deno.test("400 fails bad_request with the body's error message, without retrying", async () => {
  const fake = endpoint(() => json({ error: { message: "temperature must be at most 2" } }, 400));
  const e = await modelError(mk(fake).complete(REQ, live()), "bad_request");
  assert.equal(e.message, `400 Bad Request from ${URL_}: temperature must be at most 2`);
  assert.equal(e.status, 400);
  assert.equal(fake.calls.length, 1);
});

Deno.test("a 400 for a prompt over the window (OpenAI context_length_exceeded) is kind context_length", async () => {
  const body = {
    error: {
      message: "This model's maximum context length is 8192 tokens. However, your messages " +
        "resulted in 9001 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  };
  const fake = endpoint(() => json(body, 400));
  const e = await modelError(mk(fake).complete(REQ, live()), "context_length");
  assert.match(e.message, /^400 Bad Request from .*: This model's maximum context length is 8192/);
  assert.equal(fake.calls.length, 1);
});

const calls = (...c: unknown[]) => () => reply({ content: null, tool_calls: c });
const MALFORMED: [string, () => Response, RegExp][] = [
  ["non-JSON body", () => status(200, "<html>oops</html>"), /body is not JSON: "<html>oops/],
  ["missing choices", () => json({ id: "x" }), /no choices/],
  ["empty choices", () => json({ choices: [] }), /no choices/],
  ["choice without message", () => json({ choices: [{}] }), /choices\[0\] has no message/],
  // A missing id is named by the loop (tests/trust/call_ids_test.ts); a wrong type is malformed.
  ["tool call id not a string", calls({ id: 7, function: { name: "f" } }), /\.id is not a string/],
  ["tool call without function", calls({ id: "c1" }), /tool_calls\[0\]\.function is missing/],
  ["tool call without name", calls({ id: "c", function: {} }), /\.function\.name is missing/],
  [
    "arguments not a string",
    calls({ ...CALL, function: { name: "f", arguments: 3 } }),
    /not a str/,
  ],
  [
    "usage with wrong types",
    () => reply({ content: "x" }, { usage: { prompt_tokens: "12", completion_tokens: 1 } }),
    /usage\.prompt_tokens is not a non-negative integer/,
  ],
  ["content of the wrong type", () => reply({ content: 42 }), /content is not a string/],
];

for (const [what, response, pattern] of MALFORMED) {
  Deno.test(`malformed reply (${what}) fails malformed without retrying`, async () => {
    const fake = endpoint(response);
    const e = await modelError(mk(fake).complete(REQ, live()), "malformed");
    assert.match(e.message, pattern);
    assert.ok(e.message.includes(URL_), e.message);
    assert.equal(fake.calls.length, 1);
    // The provider answered 200 with its reply object: it may have billed it.
    // An HTML page most likely never came from it.
    assert.equal(e.lost.length, what === "non-JSON body" ? 0 : 1, JSON.stringify(e.lost));
    for (const lost of e.lost) assert.match(lost.reason, /^the reply was malformed: /);
  });
}

Deno.test("abort during a backoff sleep rejects promptly with the reason, no further attempt", async () => {
  const fake = endpoint(() => status(500));
  const ctrl = new AbortController();
  const reason = new Error("user cancelled");
  const t0 = performance.now();
  const pending = mk(fake, { retryBaseMs: 60_000 }).complete(REQ, ctrl.signal);
  setTimeout(() => ctrl.abort(reason), 30);
  assert.equal(await failure(pending), reason);
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(fake.calls.length, 1);
});

Deno.test("an already aborted signal makes no request at all", async () => {
  const fake = endpoint(() => json(GOOD));
  const reason = new Error("too late");
  assert.equal(await failure(mk(fake).complete(REQ, AbortSignal.abort(reason))), reason);
  assert.equal(fake.calls.length, 0);
});

Deno.test("abort during a request rejects with the reason and is not retried", async () => {
  const ctrl = new AbortController();
  const fake = endpoint((_, call) => {
    setTimeout(() => ctrl.abort("stop"), 10);
    return hang(call.signal);
  });
  assert.equal(await failure(mk(fake).complete(REQ, ctrl.signal)), "stop");
  assert.equal(fake.calls.length, 1);
  // Even with no retries left, an abort is the caller's reason, never a network error.
  const late = new AbortController();
  const last = endpoint((_, call) => (setTimeout(() => late.abort("gone"), 10), hang(call.signal)));
  assert.equal(await failure(mk(last, { maxRetries: 0 }).complete(REQ, late.signal)), "gone");
});

Deno.test("a per-attempt timeout is a retryable network error", async () => {
  const fake = endpoint((n, call) => n === 1 ? hang(call.signal) : json(GOOD));
  assert.equal((await mk(fake, { timeoutMs: 20 }).complete(REQ, live())).model, "fake-1");
  assert.equal(fake.calls.length, 2);
});

Deno.test("timeouts on every attempt fail network, saying it timed out", async () => {
  const fake = endpoint((_, call) => hang(call.signal));
  const model = mk(fake, { timeoutMs: 10, maxRetries: 1 });
  const e = await modelError(model.complete(REQ, live()), "network");
  assert.equal(e.message, `Network error calling ${URL_} after 2 attempts: timed out after 10 ms`);
  assert.equal(fake.calls.length, 2);
});

Deno.test("connection refused (fetch throws TypeError) is not retried: nothing listens there", async () => {
  const fake = endpoint(() => {
    throw new TypeError("error sending request: Connection refused (os error 111)");
  });
  const e = await modelError(mk(fake).complete(REQ, live()), "network");
  assert.equal(fake.calls.length, 1);
  assert.equal(e.message, `Nothing listens at ${URL_}: connection refused`);
});

Deno.test("no permission to reach the endpoint is not retried: it says so", async () => {
  const fake = endpoint(() => {
    throw new Deno.errors.NotCapable('Requires net access to "api.example.test:443"');
  });
  const e = await modelError(mk(fake).complete(REQ, live()), "network");
  assert.equal(fake.calls.length, 1);
  assert.equal(
    e.message,
    `Cannot call ${URL_}: Requires net access to "api.example.test:443"`,
  );
});

Deno.test("a reset connection (not a refusal) is still retried", async () => {
  const fake = endpoint(() => {
    throw new TypeError("error sending request: connection reset by peer");
  });
  const e = await modelError(mk(fake).complete(REQ, live()), "network");
  assert.equal(fake.calls.length, 4);
  assert.ok(e.message.startsWith(`Network error calling ${URL_} after 4 attempts`), e.message);
});

Deno.test("a real closed port fails network at the first refusal", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const model = createOpenAIModel({ baseUrl, model: "m", maxRetries: 3, retryBaseMs: 5_000 });
  const e = await modelError(model.complete(REQ, live()), "network");
  assert.equal(e.message, `Nothing listens at ${baseUrl}/chat/completions: connection refused`);
});

Deno.test("works against a real HTTP server", async () => {
  let seen: unknown;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen = { path: new URL(req.url).pathname, body: await req.json() };
    return json(GOOD);
  });
  try {
    const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
    const r = await createOpenAIModel({ baseUrl, model: "m" }).complete(REQ, live());
    assert.equal(r.message.tool_calls?.[0].id, "c1");
    // Streams by default; a JSON answer is read as a plain reply.
    const stream_options = { include_usage: true };
    const body = { model: "m", messages: REQ.messages, stream: true, stream_options };
    assert.deepEqual(seen, { path: "/v1/chat/completions", body });
  } finally {
    await server.shutdown();
  }
});

Deno.test("modelFromEnv reads LLM_BASE_URL, LLM_API_KEY and LLM_MODEL; overrides win", async () => {
  const fake = endpoint(() => json(GOOD));
  const env = new Map([["LLM_BASE_URL", BASE], ["LLM_API_KEY", "sk-env"], ["LLM_MODEL", "env-m"]]);
  const model = modelFromEnv(env, { fetch: fake.fetch });
  assert.equal(model.name, "env-m");
  await model.complete(REQ, live());
  assert.equal(fake.calls[0].url, URL_);
  assert.equal(fake.calls[0].headers.get("authorization"), "Bearer sk-env");
  assert.equal(modelFromEnv(env, { model: "other" }).name, "other");
});

Deno.test("modelFromEnv without a base URL or model throws ConfigError naming the variable", () => {
  assert.throws(() => modelFromEnv(new Map([["LLM_MODEL", "m"]])), (e: Error) => {
    assert.ok(e instanceof ConfigError);
    assert.match(e.message, /LLM_BASE_URL/);
    return true;
  });
  assert.throws(() => modelFromEnv(new Map([["LLM_BASE_URL", BASE]])), /LLM_MODEL/);
});

/** A real server answering 200 at once, then holding the body open until `release`. */
function stallingServer() {
  let release = () => {};
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"choices":'));
          release = () => c.close();
        },
      }),
      { headers: { "content-type": "application/json" } },
    ));
  return { baseUrl: `http://127.0.0.1:${server.addr.port}/v1`, server, release: () => release() };
}

Deno.test("the runtime's fetch: a Stop while the body is read rejects at once with its reason", async () => {
  const s = stallingServer();
  try {
    const model = createOpenAIModel({ baseUrl: s.baseUrl, model: "m", stream: false });
    const ctrl = new AbortController();
    const reason = new Error("stopped");
    setTimeout(() => ctrl.abort(reason), 30);
    const t0 = performance.now();
    assert.equal(await failure(model.complete(REQ, ctrl.signal)), reason);
    assert.ok(performance.now() - t0 < 1_000, "rejected long after the Stop");
  } finally {
    s.release();
    await s.server.shutdown();
  }
});

Deno.test("the runtime's fetch: a body that stalls past the timeout is a network error", async () => {
  const s = stallingServer();
  try {
    const model = createOpenAIModel({
      baseUrl: s.baseUrl,
      model: "m",
      stream: false,
      timeoutMs: 20,
      maxRetries: 0,
    });
    const e = await modelError(model.complete(REQ, live()), "network");
    assert.match(e.message, /after 1 attempt: timed out after 20 ms$/);
  } finally {
    s.release();
    await s.server.shutdown();
  }
});

Deno.test("a caller's fetch that ignores the signal still cannot hold a Stop", async () => {
  const body = new ReadableStream<Uint8Array>({ start: () => {} }); // never ends, never aborts
  const fake = endpoint(() => new Response(body, { status: 200 }));
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort("stop"), 20);
  assert.equal(await failure(mk(fake).complete(REQ, ctrl.signal)), "stop");
});
