// A reply's text comes in more shapes than a string: OpenAI's structured
// outputs answer a refused request with `message.refusal` (content null), and
// Mistral's reasoning models send `content` as parts (`thinking`, `text`).
// Before, a refusal became an empty answer (its words lost) and content parts
// failed the call as malformed (the reply counted as lost spend).
import assert from "node:assert/strict";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { ModelError } from "../harness/errors.ts";
import type { ModelReply, ModelRequest } from "../harness/model.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { z } from "zod";

const REQ: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };
const USAGE = { prompt_tokens: 9, completion_tokens: 5 };
const REFUSAL = "I'm sorry, I can't help with that.";

/** A model whose endpoint answers every call with `answer`, plain or streamed. */
function modelAnswering(answer: () => Response, stream = false) {
  return createOpenAIModel({
    baseUrl: "http://provider.test/v1",
    model: "m",
    stream,
    maxRetries: 0,
    fetch: () => Promise.resolve(answer()),
  });
}

const plain = (message: Record<string, unknown>) => () =>
  Response.json({ choices: [{ finish_reason: "stop", message }], usage: USAGE });

const streamed = (deltas: Record<string, unknown>[]) => () =>
  new Response(
    [
      ...deltas.map((delta) => ({ choices: [{ index: 0, delta }] })),
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { choices: [], usage: USAGE },
    ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n",
    { headers: { "content-type": "text/event-stream" } },
  );

async function complete(answer: () => Response, stream = false): Promise<ModelReply> {
  const deltas: string[] = [];
  const reply = await modelAnswering(answer, stream).complete(
    { ...REQ, onText: (d) => deltas.push(d) },
    new AbortController().signal,
  );
  if (stream) assert.equal(deltas.join(""), reply.message.content ?? "");
  return reply;
}

Deno.test("a refusal is the reply's text, plain or streamed, its finish reason content_filter", async () => {
  const refused = await complete(plain({ role: "assistant", content: null, refusal: REFUSAL }));
  assert.equal(refused.message.content, REFUSAL);
  assert.equal(refused.finishReason, "content_filter");
  const pieces = [{ role: "assistant", refusal: "I'm sorry, " }, {
    refusal: "I can't help with that.",
  }];
  const streamedRefusal = await complete(streamed(pieces), true);
  assert.equal(streamedRefusal.message.content, REFUSAL);
  assert.equal(streamedRefusal.finishReason, "content_filter");
  // Words beside an empty refusal are the reply as it is.
  const said = await complete(plain({ role: "assistant", content: "Sure.", refusal: null }));
  assert.deepEqual([said.message.content, said.finishReason], ["Sure.", "stop"]);
  // Words and a refusal: both kept, and the watchers saw both (before the review: only one).
  const both = await complete(plain({ role: "assistant", content: "Well. ", refusal: REFUSAL }));
  assert.equal(both.message.content, `Well. ${REFUSAL}`);
  const streamedBoth = await complete(
    streamed([{ content: "Well. " }, { refusal: "I'm sorry, ", content: "" }, {
      refusal: "I can't help with that.",
    }]),
    true,
  );
  assert.equal(streamedBoth.message.content, `Well. ${REFUSAL}`);
  // A refusal cut at max_tokens still says `length` (a hard budget acts on it).
  const cut = await complete(() =>
    Response.json({
      choices: [{ finish_reason: "length", message: { content: null, refusal: "I'm sorry" } }],
      usage: USAGE,
    })
  );
  assert.equal(cut.finishReason, "length");
});

Deno.test("a refused run completes with the refusal as its output, not an empty answer", async () => {
  const done = await run(newRun("Write something harmful."), {
    model: modelAnswering(plain({ role: "assistant", content: null, refusal: REFUSAL })),
  });
  assert.equal(done.status, "completed");
  assert.equal(done.output, REFUSAL);
  assert.equal(done.messages.at(-1)?.content, REFUSAL);
});

Deno.test("a typed run fails at once on a refusal, its words kept: no repair turn", async () => {
  for (const stream of [false, true]) {
    let calls = 0;
    const answer = stream
      ? streamed([{ role: "assistant", refusal: "I'm sorry, " }, {
        refusal: "I can't help with that.",
      }])
      : plain({ role: "assistant", content: null, refusal: REFUSAL });
    const done = await run(newRun("Write something harmful."), {
      model: modelAnswering(() => (calls++, answer()), stream),
      output: z.object({ plan: z.string() }),
    });
    assert.equal(done.status, "failed", `stream: ${stream}`);
    assert.equal(calls, 1, "asked once, not repaired");
    assert.equal(done.stopReason, "the model refused to answer (content_filter)");
    assert.equal(done.error, REFUSAL);
    assert.deepEqual(done.failure, { kind: "refusal", raw: REFUSAL });
    assert.equal(done.output, null);
    assert.equal(done.outputRepairs, undefined);
  }
  // A typed run whose reply a filter ended with `content`.
  const filteredRun = (content: string) =>
    run(newRun("Plan."), {
      model: modelAnswering(() =>
        Response.json({
          choices: [{ finish_reason: "content_filter", message: { content } }],
          usage: USAGE,
        })
      ),
      output: z.object({ plan: z.string() }),
    });
  // A filter that left no words: said so, not an empty error.
  const filtered = await filteredRun("");
  assert.equal(filtered.status, "failed");
  assert.equal(filtered.error, "the reply was filtered (content_filter) and holds no words");
  assert.deepEqual(filtered.failure, { kind: "refusal", raw: "" });
  // An answer that passes is accepted whatever the finish reason says.
  const passing = await filteredRun('{"plan":"walk"}');
  assert.equal(passing.status, "completed");
  assert.deepEqual(passing.output, { plan: "walk" });
});

Deno.test("content parts are read for their text parts, plain or streamed; a thinking part is no answer", async () => {
  const parts = [
    { type: "thinking", thinking: [{ type: "text", text: "Let me see." }] },
    { type: "text", text: "The answer " },
    { type: "text", text: "is 42." },
  ];
  const reply = await complete(plain({ role: "assistant", content: parts }));
  assert.equal(reply.message.content, "The answer is 42.");
  const streamedParts = await complete(
    streamed([{ role: "assistant", content: [parts[0]] }, { content: [parts[1]] }, {
      content: "is 42.",
    }]),
    true,
  );
  assert.equal(streamedParts.message.content, "The answer is 42.");
  // No text part: no text (a reply of only tool calls, or thinking).
  const none = await complete(plain({ role: "assistant", content: [] }));
  assert.equal(none.message.content, null);
  // Not parts: still malformed.
  for (const content of [7, [7], { text: "x" }, [{ foo: 1 }], [{ type: "text", text: 7 }]]) {
    const e = await complete(plain({ role: "assistant", content })).catch((e: unknown) => e);
    assert.ok(e instanceof ModelError && e.kind === "malformed", String(e));
    assert.match(e.message, /content is not a string or text parts/);
  }
});

Deno.test("a refusal's failure is stored and read back from KV", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const done = await run(newRun("Write something harmful."), {
      model: modelAnswering(plain({ role: "assistant", content: null, refusal: REFUSAL })),
      output: z.object({ plan: z.string() }),
      store,
    });
    assert.equal(done.status, "failed");
    const loaded = await store.load(done.runId);
    assert.deepEqual(loaded?.failure, { kind: "refusal", raw: REFUSAL });
    assert.equal(loaded?.error, REFUSAL);
  } finally {
    kv.close();
  }
});
