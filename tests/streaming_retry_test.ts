// A stream that breaks after words were shown, then a retry that succeeds:
// watchers are told to start the reply over (a `reset`), so the deltas after
// the last reset join to the final text, in the model, the stored (coalesced)
// trace, the CLI and the inspector's typing.
import assert from "node:assert/strict";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { ModelError } from "../harness/errors.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { memorySink, type TextDeltaEvent, type TraceEvent } from "../harness/trace.ts";
import { coalesceDeltas } from "../kv/delta_coalescer.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun } from "../runtime/execute_run.ts";
import { streamPrinter } from "../cli/stream_printer.ts";

const FINAL = "The timeout is set in config.ts, line 12.";
const data = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const chunk = (content: string) => data({ choices: [{ index: 0, delta: { content } }] });

/** Attempt 1 streams `shown` then the connection breaks; attempt 2 streams FINAL whole. */
function breakingFetch(shown: string[]) {
  let attempts = 0;
  const fetch: typeof globalThis.fetch = () => {
    attempts++;
    const enc = new TextEncoder();
    const first = attempts === 1;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (first) {
          for (const s of shown) c.enqueue(enc.encode(chunk(s)));
          await new Promise((r) => setTimeout(r, 5));
          c.error(new TypeError("connection reset by peer"));
          return;
        }
        for (const s of FINAL.match(/.{1,6}/g)!) c.enqueue(enc.encode(chunk(s)));
        c.enqueue(enc.encode(data({
          choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
          usage: { prompt_tokens: 20, completion_tokens: 11 },
        })));
        c.enqueue(enc.encode("data: [DONE]\n\n"));
        c.close();
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  return { fetch, attempts: () => attempts };
}

/** What a watcher shows: the deltas of the last turn after its last reset. */
function shownText(events: readonly TraceEvent[]): string {
  let text = "";
  for (const e of events) {
    if (e.type !== "text_delta") continue;
    if (e.reset) text = "";
    text += e.delta;
  }
  return text;
}

Deno.test("a retried stream resets the words shown: the deltas after the reset join to the reply", async () => {
  const { fetch, attempts } = breakingFetch(["The time", "out is in "]);
  const model = createOpenAIModel({
    baseUrl: "http://x.local/v1",
    model: "m",
    fetch,
    retryBaseMs: 1,
  });
  const seen: string[] = [];
  const reply = await model.complete({
    messages: [{ role: "user", content: "Where is the timeout?" }],
    tools: [],
    onText: (d) => seen.push(d),
    onReset: () => seen.push("<reset>"),
  }, new AbortController().signal);
  assert.equal(attempts(), 2);
  assert.equal(reply.message.content, FINAL);
  assert.deepEqual(reply.usage, { prompt_tokens: 20, completion_tokens: 11 });
  // The failed attempt's words were shown, then voided once, then the retry's.
  assert.deepEqual(seen.slice(0, 3), ["The time", "out is in ", "<reset>"]);
  assert.equal(seen.filter((s) => s === "<reset>").length, 1);
  assert.equal(seen.slice(seen.lastIndexOf("<reset>") + 1).join(""), FINAL);
  assert.notEqual(seen.filter((s) => s !== "<reset>").join(""), FINAL);
});

Deno.test("a failure before any word is retried without a reset", async () => {
  const { fetch } = breakingFetch([]);
  const model = createOpenAIModel({
    baseUrl: "http://x.local/v1",
    model: "m",
    fetch,
    retryBaseMs: 1,
  });
  let resets = 0;
  const text: string[] = [];
  await model.complete({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    onText: (d) => text.push(d),
    onReset: () => resets++,
  }, new AbortController().signal);
  assert.equal(resets, 0);
  assert.equal(text.join(""), FINAL);
});

Deno.test("a run's trace carries the reset, stored through the coalescer, and the CLI starts over", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const s = newRun("Where is the timeout?");
    await store.save(s);
    const { fetch } = breakingFetch(["The time", "out is in "]);
    const model = createOpenAIModel({
      baseUrl: "http://x.local/v1",
      model: "m",
      fetch,
      retryBaseMs: 1,
    });
    const { sink, events } = memorySink();
    let out = "";
    const printer = streamPrinter(s.runId, performance.now(), (t) => out += t);
    const done = await executeRun(store, s.runId, {
      model,
      trace: (e) => (printer(e), sink(e)),
    });
    assert.equal(done.status, "completed");
    assert.equal(done.output, FINAL);
    const live = events.filter((e): e is TextDeltaEvent => e.type === "text_delta");
    assert.equal(live.filter((e) => e.reset).length, 1);
    assert.equal(shownText(live), FINAL);
    // Stored: coalesced writes, the reset among them, the same text after it.
    const stored = (await store.events(s.runId)).map((e) => e.event);
    const deltas = stored.filter((e): e is TextDeltaEvent => e.type === "text_delta");
    assert.ok(deltas.some((e) => e.reset), "the reset was not written");
    assert.equal(shownText(deltas), FINAL);
    assert.notEqual(deltas.map((e) => e.delta).join(""), FINAL);
    // The CLI marks the retry and prints the reply again on a line of its own.
    const lines = out.split("\n");
    assert.ok(lines.includes("  root> The timeout is in  ↺ retrying"), out);
    assert.ok(lines.includes(`  root> ${FINAL}`), out);
  } finally {
    kv.close();
  }
});

Deno.test("the coalescer drops buffered deltas at a reset and writes the reset", async () => {
  const { sink, events } = memorySink();
  const coalesced = coalesceDeltas(sink, 60_000);
  const d = (delta: string, reset?: true) =>
    coalesced({
      type: "text_delta",
      runId: "r",
      at: "",
      delta,
      turn: 1,
      ...reset ? { reset } : {},
    });
  await d("a"); // written at once
  await d("b"); // buffered
  await d("", true);
  await d("c");
  await coalesced({
    type: "tool_start",
    runId: "r",
    at: "",
    toolName: "t",
    callId: "c",
    args: "{}",
  });
  assert.deepEqual(
    events.map((e) => e.type === "text_delta" ? [e.delta, e.reset ?? false] : e.type),
    [["a", false], ["c", true], "tool_start"],
  );
});

Deno.test("a run without a trace streams nothing and asks no reset", async () => {
  const { fetch } = breakingFetch(["Some words"]);
  const model = createOpenAIModel({
    baseUrl: "http://x.local/v1",
    model: "m",
    fetch,
    retryBaseMs: 1,
  });
  const done = await run(newRun("hi"), { model });
  assert.equal(done.output, FINAL);
});

Deno.test("a stream that ends mid-chunk is a cut: retried, its lost reply counted", async () => {
  let attempts = 0;
  const enc = new TextEncoder();
  const fetch: typeof globalThis.fetch = () => {
    attempts++;
    const text = attempts === 1
      ? chunk("The timeout") + 'data: {"choices":[{"index":0,"delta":{"content":" is s'
      : chunk(FINAL) + data({
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        usage: { prompt_tokens: 20, completion_tokens: 11 },
      }) + "data: [DONE]\n\n";
    return Promise.resolve(
      new Response(enc.encode(text), { headers: { "content-type": "text/event-stream" } }),
    );
  };
  const model = createOpenAIModel({
    baseUrl: "http://x.local/v1",
    model: "m",
    fetch,
    retryBaseMs: 1,
  });
  // Before: the half chunk was parsed, and the call failed at once as a malformed reply.
  const reply = await model.complete({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  }, new AbortController().signal);
  assert.equal(attempts, 2);
  assert.equal(reply.message.content, FINAL);
  assert.equal(reply.lost?.length, 1);
  assert.ok(reply.lost[0]!.completion_tokens > 0);
});

Deno.test("a reply over maxReplyBytes is refused, streamed, chunked or declared, and not asked again", async () => {
  const enc = new TextEncoder();
  const endless = () =>
    new ReadableStream<Uint8Array>({
      pull: (c) => c.enqueue(enc.encode(chunk("x".repeat(500)))),
    });
  const bodies = {
    // Before: read until the isolate ran out of memory (1.49 GB, then "Invalid string length").
    streamed: () => new Response(endless(), { headers: { "content-type": "text/event-stream" } }),
    chunked: () => new Response(endless(), { headers: { "content-type": "application/json" } }),
    declared: () =>
      new Response("x".repeat(5000), {
        headers: { "content-type": "application/json", "content-length": "5000" },
      }),
  };
  for (const [kind, make] of Object.entries(bodies)) {
    let attempts = 0;
    const fetch: typeof globalThis.fetch = () => (attempts++, Promise.resolve(make()));
    const model = createOpenAIModel({
      baseUrl: "http://x.local/v1",
      model: "m",
      fetch,
      retryBaseMs: 1,
      maxReplyBytes: 4096,
    });
    await assert.rejects(
      () =>
        model.complete(
          { messages: [{ role: "user", content: "hi" }], tools: [] },
          new AbortController().signal,
        ),
      (e) =>
        e instanceof ModelError && e.kind === "malformed" &&
        /the (stream|body) passed \d+ bytes \(maxReplyBytes\)/.test(e.message),
      kind,
    );
    assert.equal(attempts, 1, kind);
  }
  // A refused stream had begun a reply the provider may bill: it is a lost reply, estimated.
  const model = createOpenAIModel({
    baseUrl: "http://x.local/v1",
    model: "m",
    fetch: () => Promise.resolve(bodies.streamed()),
    maxReplyBytes: 4096,
  });
  const refused = await model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [] },
    new AbortController().signal,
  ).catch((e) => e);
  assert.ok(refused instanceof ModelError && refused.lost.length === 1, String(refused));
  assert.ok(refused.lost[0]!.completion_tokens > 500, JSON.stringify(refused.lost));
});

Deno.test("a compressed reply is counted as it unpacks: its declared length is the packed one", async () => {
  const big = JSON.stringify({ pad: "x".repeat(200_000) });
  const packed = new Uint8Array(
    await new Response(new Blob([big]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () =>
      new Response(packed, {
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
      }),
  );
  const model = createOpenAIModel({
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    model: "m",
    maxRetries: 0,
    maxReplyBytes: 100_000,
  });
  // Before: the packed length (under 1 KB) passed the check and 200 KB were read whole.
  await assert.rejects(
    () =>
      model.complete(
        { messages: [{ role: "user", content: "hi" }], tools: [] },
        new AbortController().signal,
      ),
    (e) => e instanceof ModelError && /the body passed \d+ bytes \(maxReplyBytes\)/.test(e.message),
  );
});

Deno.test("maxReplyBytes is an integer of at least 1", () => {
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(
      () => createOpenAIModel({ baseUrl: "http://x.local/v1", model: "m", maxReplyBytes: bad }),
      (e) =>
        e instanceof RangeError && /maxReplyBytes must be an integer of at least 1/.test(e.message),
    );
  }
});

Deno.test("a plain reply read in pieces (a custom fetch) is decoded whole, a character split too", async () => {
  const body = new TextEncoder().encode(JSON.stringify({
    choices: [{
      index: 0,
      message: { role: "assistant", content: "naïve café" },
      finish_reason: "stop",
    }],
    usage: { prompt_tokens: 5, completion_tokens: 3 },
  }));
  const cut = body.indexOf(0xc3) + 1; // inside the two bytes of "ï"
  const pieces = [body.slice(0, cut), body.slice(cut, cut + 7), body.slice(cut + 7)];
  const fetch: typeof globalThis.fetch = () =>
    Promise.resolve(
      new Response(
        new ReadableStream({
          pull: (c) => void (pieces.length ? c.enqueue(pieces.shift()!) : c.close()),
        }),
        { headers: { "content-type": "application/json" } },
      ),
    );
  const model = createOpenAIModel({
    baseUrl: "http://x.local/v1",
    model: "m",
    fetch,
    stream: false,
  });
  const reply = await model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [] },
    new AbortController().signal,
  );
  assert.equal(reply.message.content, "naïve café");
});
