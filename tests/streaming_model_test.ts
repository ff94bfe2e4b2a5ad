// The OpenAI-compatible client streaming: text as it arrives, the same reply,
// usage and errors as a plain call, the fallback for endpoints that do not
// stream, and a Stop that ends the stream at once.
import assert from "node:assert/strict";
import { createOpenAIModel, type OpenAIModelOptions } from "../openai/openai_model.ts";
import { ModelError } from "../harness/errors.ts";
import type { ModelRequest } from "../harness/model.ts";
import { scriptedFetch, type ScriptedProviderOptions } from "../testing/scripted_provider.ts";
import { streamEvents } from "../testing/wire.ts";

const BASE = "http://fake.local/v1";
const REQ: ModelRequest = {
  messages: [{ role: "user", content: "Which file mentions a timeout? Answer in full." }],
  tools: [],
};
const live = () => new AbortController().signal;

/** A scripted-provider model recording each request body and every delta. */
function scripted(
  scenario: string,
  extra: Partial<OpenAIModelOptions> = {},
  provider: ScriptedProviderOptions = {},
) {
  const bodies: Record<string, unknown>[] = [];
  const inner = scriptedFetch(provider);
  const fetch: typeof globalThis.fetch = (input, init) => {
    bodies.push(JSON.parse(String(init?.body)));
    return inner(input, init);
  };
  const model = createOpenAIModel({ baseUrl: BASE, model: scenario, fetch, ...extra });
  return { model, bodies };
}

/** An endpoint answering attempt `n` (from 1) with `script(n, body)`. */
function endpoint(script: (n: number, body: Record<string, unknown>) => Response) {
  const bodies: Record<string, unknown>[] = [];
  const fetch: typeof globalThis.fetch = (_input, init) => {
    const body = JSON.parse(String(init?.body));
    bodies.push(body);
    return Promise.resolve(script(bodies.length, body));
  };
  return { fetch, bodies };
}

const sse = (events: string[]) =>
  new Response(events.join(""), { headers: { "content-type": "text/event-stream" } });
const data = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const errorJson = (status: number, message: string) =>
  Response.json({ error: { message } }, { status });

Deno.test("a streamed reply arrives in pieces that join to the reply, with the plain call's usage", async () => {
  const streamed = scripted("echo");
  const plain = scripted("echo", { stream: false });
  const deltas: string[] = [];
  const req = REQ;
  const a = await streamed.model.complete({ ...req, onText: (d) => deltas.push(d) }, live());
  const b = await plain.model.complete(req, live());
  assert.equal(streamed.bodies[0].stream, true);
  assert.deepEqual(streamed.bodies[0].stream_options, { include_usage: true });
  assert.equal(plain.bodies[0].stream, undefined);
  assert.ok(deltas.length > 3, `expected several deltas, got ${deltas.length}`);
  assert.equal(deltas.join(""), a.message.content);
  assert.deepEqual(a, b);
});

Deno.test("streamed tool calls are assembled from their deltas by index", async () => {
  const streamed = scripted("plan");
  const plain = scripted("plan", { stream: false });
  const a = await streamed.model.complete(REQ, live());
  const b = await plain.model.complete(REQ, live());
  assert.ok(a.message.tool_calls?.length, "plan's first turn calls a tool");
  assert.deepEqual(a, b);
  // Interleaved deltas of two calls, arguments in pieces, name and id first.
  const fake = endpoint(() =>
    sse([
      data({ choices: [{ index: 0, delta: { role: "assistant", content: null } }] }),
      data({
        choices: [{
          index: 0,
          delta: {
            tool_calls: [
              { index: 1, id: "b", type: "function", function: { name: "g", arguments: "" } },
              { index: 0, id: "a", type: "function", function: { name: "f", arguments: '{"x"' } },
            ],
          },
        }],
      }),
      data({
        choices: [{
          index: 0,
          delta: { tool_calls: [{ index: 1, function: { arguments: "{}" } }] },
        }],
      }),
      data({
        choices: [{
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: ":1}" } }] },
        }],
      }),
      data({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
      data({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } }),
      "data: [DONE]\n\n",
    ])
  );
  const r = await createOpenAIModel({ baseUrl: BASE, model: "m", fetch: fake.fetch })
    .complete(REQ, live());
  assert.deepEqual(r.message.tool_calls, [
    { id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } },
    { id: "b", type: "function", function: { name: "g", arguments: "{}" } },
  ]);
  assert.equal(r.message.content, null);
  assert.equal(r.finishReason, "tool_calls");
  assert.deepEqual(r.usage, { prompt_tokens: 5, completion_tokens: 3 });
});

Deno.test("an endpoint answering JSON to a stream request is read plainly and asked plainly after", async () => {
  const fake = endpoint(() =>
    Response.json({
      choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 1 },
    })
  );
  const model = createOpenAIModel({ baseUrl: BASE, model: "m", fetch: fake.fetch });
  const deltas: string[] = [];
  const r = await model.complete({ ...REQ, onText: (d) => deltas.push(d) }, live());
  assert.equal(r.message.content, "hi");
  assert.deepEqual(deltas, []);
  await model.complete(REQ, live());
  assert.deepEqual(fake.bodies.map((b) => b.stream), [true, undefined]);
});

Deno.test("a 400 refusing the stream falls back to a plain request, remembered for the next call", async () => {
  const fake = endpoint((_, body) =>
    body.stream
      ? errorJson(400, "stream is not supported")
      : Response.json({ choices: [{ message: { role: "assistant", content: "ok" } }] })
  );
  const model = createOpenAIModel({ baseUrl: BASE, model: "m", fetch: fake.fetch, maxRetries: 0 });
  assert.equal((await model.complete(REQ, live())).message.content, "ok");
  assert.equal((await model.complete(REQ, live())).message.content, "ok");
  assert.deepEqual(fake.bodies.map((b) => b.stream), [true, undefined, undefined]);
});

Deno.test("a 400 a plain request gets too fails bad_request, and the next call streams again", async () => {
  const fake = endpoint(() => errorJson(400, "temperature must be at most 2"));
  const model = createOpenAIModel({ baseUrl: BASE, model: "m", fetch: fake.fetch });
  for (let i = 0; i < 2; i++) {
    const e = await model.complete(REQ, live()).then(() => null, (e) => e);
    assert.ok(e instanceof ModelError && e.kind === "bad_request", String(e));
    assert.match(e.message, /temperature must be at most 2/);
  }
  assert.deepEqual(fake.bodies.map((b) => b.stream), [true, undefined, true, undefined]);
});

Deno.test("429 and 500 before the first byte are retried as without streaming", async () => {
  const { model, bodies } = scripted("echo", { retryBaseMs: 1 }, {
    faults: (() => {
      let n = 0;
      return () => (++n === 1 ? "500" : n === 2 ? "429-no-retry-after" : undefined);
    })(),
  });
  const deltas: string[] = [];
  const r = await model.complete({ ...REQ, onText: (d) => deltas.push(d) }, live());
  assert.equal(bodies.length, 3);
  assert.ok(bodies.every((b) => b.stream === true));
  assert.equal(deltas.join(""), r.message.content);
  assert.equal(r.message.content, REQ.messages[0].content);
});

Deno.test("a chunk that is not JSON fails malformed; an error chunk fails with its message", async () => {
  const bad = endpoint(() => sse(["data: {oops\n\n"]));
  const e = await createOpenAIModel({ baseUrl: BASE, model: "m", fetch: bad.fetch })
    .complete(REQ, live()).then(() => null, (e) => e);
  assert.ok(e instanceof ModelError && e.kind === "malformed", String(e));
  assert.match(e.message, /stream chunk is not JSON/);
  const err = endpoint(() => sse([data({ error: { message: "overloaded" } })]));
  const e2 = await createOpenAIModel({ baseUrl: BASE, model: "m", fetch: err.fetch, maxRetries: 0 })
    .complete(REQ, live()).then(() => null, (e) => e);
  assert.ok(e2 instanceof ModelError, String(e2));
  assert.match(e2.message, /overloaded/);
});

Deno.test("the stream's line endings and split chunks do not change the reply", async () => {
  const events = streamEvents({
    id: "c",
    created: 0,
    model: "m",
    message: { role: "assistant", content: "one two three four" },
    finishReason: "stop",
    usage: { prompt_tokens: 3, completion_tokens: 4 },
  }, true).map((e) => e.replaceAll("\n", "\r\n"));
  const text = events.join("");
  // Every 7 bytes a new chunk: events, lines and "\r\n" are split anywhere.
  const bytes = new TextEncoder().encode(text);
  const fetch: typeof globalThis.fetch = () =>
    Promise.resolve(
      new Response(
        new ReadableStream({
          start(c) {
            for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
            c.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
    );
  const deltas: string[] = [];
  const r = await createOpenAIModel({ baseUrl: BASE, model: "m", fetch })
    .complete({ ...REQ, onText: (d) => deltas.push(d) }, live());
  assert.equal(r.message.content, "one two three four");
  assert.deepEqual(deltas, ["one ", "two ", "three ", "four"]);
  assert.deepEqual(r.usage, { prompt_tokens: 3, completion_tokens: 4 });
});

Deno.test("a Stop mid-stream rejects at once with its reason and no delta follows", async () => {
  // The provider pauses a minute between chunks: only an abort ends the call soon.
  const { model } = scripted("echo", {}, { chunkMs: 60_000 });
  const ac = new AbortController();
  const deltas: string[] = [];
  const p = model.complete({
    ...REQ,
    onText: (d) => {
      deltas.push(d);
      if (deltas.length === 1) ac.abort("stopped by a person");
    },
  }, ac.signal);
  let guard: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise((r) => guard = setTimeout(() => r("still streaming"), 10_000));
  const e = await Promise.race([p.then(() => "completed", (e) => e), late]);
  clearTimeout(guard);
  assert.equal(e, "stopped by a person");
  assert.equal(deltas.length, 1);
});
