// A provider that answers 2xx took the call and may have billed it: a reply
// refused as malformed still fails the run (not retried), but when its body
// looks like the provider's answer it is counted as spent, an estimate
// (`estimatedUsd`, a `spend_estimated` event with basis `lost_reply`). A body
// that does not (a proxy's HTML page, an empty body) counts nothing. A real
// HTTP server on loopback serves the bodies.
import assert from "node:assert/strict";
import { z } from "zod";
import { createOpenAIModel, type OpenAIModelOptions } from "../openai/openai_model.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { defineTool } from "../harness/tool.ts";
import { memorySink, type SpendEstimatedEvent } from "../harness/trace.ts";
import {
  countPromptTokens,
  countTokens,
  loadTokenizer,
  TOKENS_PER_TOOL_CALL,
} from "../harness/tokens.ts";
import { ModelError } from "../harness/errors.ts";
import type { Model } from "../harness/model.ts";

await loadTokenizer();

const prices = { inputPerMillion: 1, outputPerMillion: 4 };
const USAGE = { prompt_tokens: 100, completion_tokens: 40, total_tokens: 140 };
const URL_PATTERN = "http://127\\.0\\.0\\.1:\\d+/v1/chat/completions";

/** One call of a model at `provider.test` (or `options.baseUrl`), never retried: its reply, or what it threw. */
async function callOnce(
  options: Partial<OpenAIModelOptions>,
  maxTokens?: number,
): Promise<unknown> {
  const model = createOpenAIModel({
    baseUrl: "http://provider.test/v1",
    model: "m",
    maxRetries: 0,
    ...options,
  });
  return await model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [], maxTokens },
    new AbortController().signal,
  ).catch((e: unknown) => e);
}

/** A 200 SSE body of one event per data field. */
function sseOf(events: string[]): Response {
  const body = events.map((e) => `data: ${e}\n\n`).join("");
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

/** Runs one task against a loopback endpoint answering every request 200 with `body`. */
async function runAgainst(body: string, contentType = "application/json") {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    requests++;
    return new Response(body, { headers: { "content-type": contentType } });
  });
  const note = defineTool({
    name: "note",
    description: "Notes a text.",
    parameters: z.object({ text: z.string() }),
    run: () => "noted",
  });
  const trace = memorySink();
  try {
    const model = createOpenAIModel({
      baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
      model: "malformed",
      retryBaseMs: 1,
      stream: contentType === "text/event-stream",
    });
    const done = await run(newRun("Which file mentions a timeout?"), {
      model,
      tools: [note],
      prices,
      trace: trace.sink,
    });
    const estimates = trace.events.filter((e): e is SpendEstimatedEvent =>
      e.type === "spend_estimated"
    );
    return { done, requests, estimates };
  } finally {
    await server.shutdown();
  }
}

/** The run failed at once (not retried), malformed, its one lost reply counted. */
function assertCounted(r: Awaited<ReturnType<typeof runAgainst>>, what: RegExp) {
  assert.equal(r.done.status, "failed");
  assert.equal(r.requests, 1);
  assert.equal(r.done.turns, 0);
  assert.match(
    r.done.stopReason ?? "",
    new RegExp(`^model call failed \\(malformed\\): Malformed reply from ${URL_PATTERN}: `),
  );
  assert.match(r.done.stopReason ?? "", what);
  assert.equal(r.estimates.length, 1);
  const [e] = r.estimates;
  assert.equal(e.basis, "lost_reply");
  assert.match(e.reason ?? "", /^the reply was malformed: /);
  assert.ok(r.done.estimatedUsd > 0);
  assert.equal(r.done.estimatedUsd, e.usd);
  assert.equal(r.done.costUsd, r.done.estimatedUsd);
  return e;
}

Deno.test("a 200 with no choices is counted with the usage it reports", async () => {
  const r = await runAgainst(JSON.stringify({ choices: [], usage: USAGE }));
  const e = assertCounted(r, /: no choices$/);
  assert.equal(e.reason, "the reply was malformed: no choices");
  assert.equal(e.prompt_tokens, 100);
  assert.equal(e.completion_tokens, 40);
  assert.ok(Math.abs(e.usd - (100 * 1 + 40 * 4) / 1e6) < 1e-12);
});

Deno.test("a 200 whose tool call is broken, without usage, is counted locally", async () => {
  const args = '{"text":"config.json sets the timeout"}';
  const body = {
    choices: [{
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "Noting it.",
        tool_calls: [{ id: "call_1", type: "function", function: { arguments: args } }],
      },
    }],
  };
  const r = await runAgainst(JSON.stringify(body));
  const e = assertCounted(r, /tool_calls\[0\]\.function\.name is missing$/);
  // What can be read: the text and the nameless call's arguments (o200k, as tokens.ts counts).
  assert.equal(
    e.completion_tokens,
    countTokens("Noting it.") + TOKENS_PER_TOOL_CALL + countTokens(args),
  );
  // No usage reported: the prompt is counted locally.
  assert.ok(e.prompt_tokens! > 0 && e.prompt_tokens !== 100);
});

Deno.test("a 200 cut after it began a JSON object is counted at 4 characters a token", async () => {
  const body = '\n {"choices": [';
  const r = await runAgainst(body);
  const e = assertCounted(r, /: body is not JSON: "\\n \{\\"choices\\": \["$/);
  assert.equal(e.reason, "the reply was malformed: body is not JSON");
  assert.equal(e.completion_tokens, Math.ceil(body.length / 4));
  const long = JSON.stringify({ choices: [{ message: { content: "x".repeat(400) } }] }).slice(
    0,
    -3,
  );
  const cut = assertCounted(await runAgainst(long), /body is not JSON/);
  assert.equal(cut.completion_tokens, Math.ceil(long.length / 4));
});

for (
  const [what, body] of [
    ["an HTML page", "<html><body><h1>502 Bad Gateway</h1></body></html>"],
    ["an empty body", ""],
    ["a JSON array", "[]"],
  ] as const
) {
  Deno.test(`a 200 with ${what} (no reply of the provider's) counts nothing`, async () => {
    const r = await runAgainst(body);
    assert.equal(r.done.status, "failed");
    assert.equal(r.requests, 1);
    assert.match(r.done.stopReason ?? "", /model call failed \(malformed\): Malformed reply/);
    assert.equal(r.estimates.length, 0);
    assert.equal(r.done.estimatedUsd, 0);
    assert.equal(r.done.costUsd, 0);
  });
}

Deno.test("a stream assembled into a malformed reply is counted with its usage", async () => {
  const chunk = (c: Record<string, unknown>) => `data: ${JSON.stringify(c)}\n\n`;
  const sse = chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "Noting." } }] }) +
    // A tool call that never gets a name: the assembled body breaks the protocol.
    chunk({
      choices: [{
        index: 0,
        delta: { tool_calls: [{ index: 0, id: "call_1", function: { arguments: "{}" } }] },
      }],
    }) +
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }) +
    chunk({ choices: [], usage: USAGE }) + "data: [DONE]\n\n";
  const r = await runAgainst(sse, "text/event-stream");
  const e = assertCounted(r, /tool_calls\[0\]\.function\.name is missing$/);
  assert.equal(e.prompt_tokens, 100);
  assert.equal(e.completion_tokens, 40);
});

Deno.test("a lost reply's prompt count that is no count is estimated, not trusted", async () => {
  // A client of the user's own: its counts are not vouched for.
  const model: Model = {
    name: "own",
    complete: () =>
      Promise.reject(
        new ModelError("malformed", "Malformed reply from own: no choices", undefined, [
          { completion_tokens: 3, prompt_tokens: NaN, reason: "the reply was malformed: a" },
          { completion_tokens: 2, prompt_tokens: 7, reason: "the reply was malformed: b" },
        ]),
      ),
  };
  const trace = memorySink();
  const state = newRun("hi");
  const local = countPromptTokens(state.messages, []);
  const done = await run(state, { model, prices, trace: trace.sink });
  assert.equal(done.status, "failed");
  const estimates = trace.events.filter((e) => e.type === "spend_estimated");
  const counts = estimates.map((e) => [e.prompt_tokens, e.completion_tokens]);
  assert.deepEqual(counts, [[local, 3], [7, 2]]);
  assert.ok(Number.isFinite(done.costUsd) && done.costUsd > 0);
  assert.equal(done.costUsd, done.estimatedUsd);
});

Deno.test("a 2xx body read past maxReplyBytes is counted when it began as JSON, at most the reply asked for", async () => {
  const lostOf = async (body: string, maxTokens?: number, status = 200) => {
    // A caller's fetch: the body is read in pieces and counted, whatever it declares.
    const fetch = () => Promise.resolve(new Response(body, { status }));
    const e = await callOnce({ stream: false, maxReplyBytes: 100_000, fetch }, maxTokens);
    assert.ok(e instanceof ModelError && e.kind === "malformed", String(e));
    assert.match(e.message, /the body passed \d+ bytes \(maxReplyBytes\)/);
    return e.lost;
  };
  const json = `{"choices":[{"message":{"content":"${"x".repeat(200_000)}"}}]}`;
  // 200,000 characters are ~50,000 tokens: no reply is longer than max_tokens (else 16,384).
  assert.equal((await lostOf(json))[0]?.completion_tokens, 16_384);
  assert.equal((await lostOf(json, 500))[0]?.completion_tokens, 500);
  assert.match((await lostOf(json))[0]?.reason ?? "", /^the reply was malformed: the body passed/);
  // Not the provider's reply: a proxy's page counts nothing.
  assert.deepEqual(await lostOf(`<html>${"x".repeat(200_000)}</html>`), []);
  // Nor an error's body: only a 2xx was taken (before this fix: counted).
  assert.deepEqual(await lostOf(json, undefined, 500), []);
  assert.deepEqual(await lostOf(json, undefined, 400), []);
});

Deno.test("a stream garbled after its reply began counts what had arrived; garbled from the start, nothing", async () => {
  const lostOf = async (events: string[]) => {
    const e = await callOnce({ fetch: () => Promise.resolve(sseOf(events)) });
    assert.ok(e instanceof ModelError && e.kind === "malformed", String(e));
    return e.lost;
  };
  const words = JSON.stringify({
    choices: [{ index: 0, delta: { content: "word ".repeat(500) } }],
  });
  const [lost] = await lostOf([words, "{garbled"]);
  // Before: nothing counted. 2,500 characters at 4 a token.
  assert.equal(lost?.completion_tokens, 625);
  assert.match(lost?.reason ?? "", /a stream chunk is not JSON/);
  assert.deepEqual(await lostOf(["<html>", words]), []);
});

Deno.test("a 200 that reports the provider's error is its error, redacted, counted only as it reports", async () => {
  const error = { message: "upstream overloaded for key sk-secret-1", code: 502 };
  const complete = (body: unknown) =>
    callOnce({
      apiKey: "sk-secret-1",
      stream: false,
      fetch: () => Promise.resolve(Response.json(body)),
    });
  const e = await complete({ error });
  assert.ok(e instanceof ModelError && e.kind === "server", String(e));
  assert.equal(
    e.message,
    "Error reported by http://provider.test/v1/chat/completions: upstream overloaded for key [redacted]",
  );
  // Before: "malformed: no choices", and the whole prompt estimated as spent.
  assert.deepEqual(e.lost, []);
  const spent = await complete({ error, usage: USAGE });
  assert.ok(spent instanceof ModelError);
  assert.deepEqual(spent.lost.map((l) => [l.prompt_tokens, l.completion_tokens]), [[100, 40]]);
  // No choice beside it is still its error (before this fix's review: "malformed: no choices").
  for (const choices of [[], null]) {
    const e = await complete({ error, choices });
    assert.ok(e instanceof ModelError && e.kind === "server", String(e));
    assert.deepEqual(e.lost, []);
  }
  // An error without a message is shown as it was sent; one that says nothing is no error.
  const silent = await complete({ error: { message: "", code: 500 } });
  assert.match(String((silent as Error).message), /: \{"message":"","code":500\}$/);
  const empty = await complete({ error: "" });
  assert.ok(empty instanceof ModelError && empty.kind === "malformed", String(empty));
  // A reply beside an error is a reply.
  const reply = await complete({
    error: null,
    choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: USAGE,
  });
  assert.equal((reply as { message: { content: string } }).message.content, "ok");
});

Deno.test("an error chunk after a streamed reply began counts what had arrived; at once, nothing", async () => {
  const lostOf = async (events: unknown[]) => {
    const fetch = () => Promise.resolve(sseOf(events.map((e) => JSON.stringify(e))));
    const e = await callOnce({ apiKey: "sk-secret-2", fetch });
    assert.ok(e instanceof ModelError && e.kind === "server", String(e));
    assert.match(e.message, /^Error reported by \S+: overloaded \[redacted\]$/);
    return e.lost;
  };
  const error = { error: { message: "overloaded sk-secret-2" } };
  const words = { choices: [{ index: 0, delta: { content: "word ".repeat(500) } }] };
  // Before: nothing counted, and the key in the message.
  const [lost] = await lostOf([words, error]);
  assert.equal(lost?.completion_tokens, 625);
  assert.deepEqual(await lostOf([error, words]), []);
  // What it says it spent is counted as it says.
  const [said] = await lostOf([words, { ...error, usage: USAGE }]);
  assert.deepEqual([said?.prompt_tokens, said?.completion_tokens], [100, 40]);
});

Deno.test("a streamed call answered by a 200 error body keeps asking for a stream", async () => {
  const asked: boolean[] = [];
  // One client for both calls: what the first teaches it, the second shows.
  const model = createOpenAIModel({
    baseUrl: "http://provider.test/v1",
    model: "m",
    maxRetries: 0,
    fetch: (_url, init) => {
      asked.push(JSON.parse(String(init?.body)).stream === true);
      return Promise.resolve(Response.json({ error: { message: "overloaded" } }));
    },
  });
  for (let i = 0; i < 2; i++) {
    const e = await model.complete(
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      new AbortController().signal,
    ).catch((e: unknown) => e);
    assert.ok(e instanceof ModelError && e.kind === "server", String(e));
  }
  // Before: the error body was taken for "this endpoint does not stream".
  assert.deepEqual(asked, [true, true]);
});

Deno.test("a 2xx body declared longer than maxReplyBytes is refused after one read, counted when it began as JSON", async () => {
  const big = `{"choices":[{"message":{"content":"${"x".repeat(200_000)}"}}]}`;
  const lostOf = async (body: string, maxTokens?: number) => {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      await req.body?.cancel();
      // A declared length: the runtime's fetch sees content-length, not chunks.
      return new Response(body, { headers: { "content-type": "application/json" } });
    });
    try {
      const model = createOpenAIModel({
        baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
        model: "m",
        stream: false,
        maxReplyBytes: 100_000,
        maxRetries: 0,
      });
      const e = await model.complete(
        { messages: [{ role: "user", content: "hi" }], tools: [], maxTokens },
        new AbortController().signal,
      ).catch((e: unknown) => e);
      assert.ok(e instanceof ModelError && e.kind === "malformed", String(e));
      assert.match(
        e.message,
        new RegExp(`the body passed ${body.length} bytes \\(maxReplyBytes\\)`),
      );
      return e.lost;
    } finally {
      await server.shutdown();
    }
  };
  // Before: refused unread, and nothing counted.
  assert.equal((await lostOf(big))[0]?.completion_tokens, 16_384);
  assert.equal((await lostOf(big, 700))[0]?.completion_tokens, 700);
  assert.deepEqual(await lostOf(`<html>${"x".repeat(200_000)}</html>`), []);
});
