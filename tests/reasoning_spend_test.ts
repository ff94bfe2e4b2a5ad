// A reasoning model writes words it does not show: `reasoning_content`
// (DeepSeek, vLLM), `reasoning` (OpenRouter, Ollama), or `thinking` content
// parts (Mistral). The provider bills them as reply tokens. When such a reply
// is lost (a stream cut, a garbled chunk, a malformed body without usage),
// the estimate counted only the words shown, and missed what may be most of
// the reply; so did the local count of a whole reply sent without usage.
import assert from "node:assert/strict";
import { createOpenAIModel } from "../openai/openai_model.ts";
import type { ModelReply } from "../harness/model.ts";
import { ModelError } from "../harness/errors.ts";
import { countTokens, loadTokenizer } from "../harness/tokens.ts";

const REASONING = "First I list the files, then I read each log and look for a timeout. ".repeat(
  20,
);
const SHOWN = "The answer";

/** One call whose endpoint answers `body` (`sse`: streamed): its reply, or what it threw. */
function call(body: string, sse: boolean): Promise<ModelReply | unknown> {
  const model = createOpenAIModel({
    baseUrl: "http://provider.test/v1",
    model: "m",
    maxRetries: 0,
    fetch: () =>
      Promise.resolve(
        new Response(body, {
          headers: { "content-type": sse ? "text/event-stream" : "application/json" },
        }),
      ),
  });
  return model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [] },
    new AbortController().signal,
  ).catch((e: unknown) => e);
}

/** The lost reply's tokens of one call whose endpoint answers `body`. */
async function lostTokens(body: string, sse: boolean): Promise<number> {
  const e = await call(body, sse);
  assert.ok(e instanceof ModelError, `expected a ModelError, got ${e}`);
  assert.equal(e.lost.length, 1, e.message);
  return e.lost[0]!.completion_tokens;
}

/** Asserts `more` exceeds `less` by the reasoning's tokens (give or take where they join). */
function byReasoning(more: number, less: number): void {
  const reasoning = countTokens(REASONING);
  assert.ok(Math.abs(more - less - reasoning) <= 2, `${more} - ${less} is not ${reasoning}`);
}

/** An SSE body of these deltas (no finish_reason: cut), then `tail` (raw text). */
function sseOf(deltas: Record<string, unknown>[], tail = ""): string {
  return deltas.map((delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`)
    .join("") + tail;
}

/** The reasoning as each provider streams it, a word a delta. */
const FIELDS: [string, (text: string) => Record<string, unknown>][] = [
  ["reasoning_content", (text: string) => ({ reasoning_content: text })],
  ["reasoning", (text: string) => ({ reasoning: text })],
  // Mistral's shape: text parts inside a thinking part, beside (or instead of) text.
  ["thinking parts", (text: string) => ({
    content: [{ type: "thinking", thinking: [{ type: "text", text }] }],
  })],
];

const WORDS = REASONING.match(/\S+\s*/g)!;

for (const [name, delta] of FIELDS) {
  Deno.test(`a stream cut after ${name} counts the reasoning in its lost reply`, async () => {
    await loadTokenizer();
    const withReasoning = await lostTokens(
      sseOf([{ role: "assistant" }, ...WORDS.map(delta), { content: SHOWN }]),
      true,
    );
    const without = await lostTokens(sseOf([{ role: "assistant" }, { content: SHOWN }]), true);
    byReasoning(withReasoning, without);
  });
}

Deno.test("a whole reply without usage counts its reasoning, and shows none of it", async () => {
  await loadTokenizer();
  const finished = `data: ${
    JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
  }\n\n`;
  const plainBody = (extra: Record<string, unknown>) =>
    JSON.stringify({
      choices: [{
        finish_reason: "stop",
        message: { role: "assistant", content: SHOWN, ...extra },
      }],
    });
  const replies = [
    ...FIELDS.map(([, delta]) =>
      call(sseOf([...WORDS.map(delta), { content: SHOWN }], finished), true)
    ),
    call(plainBody({ reasoning_content: REASONING }), false),
    call(plainBody({ reasoning: REASONING }), false),
  ];
  const without = await call(sseOf([{ content: SHOWN }], finished), true) as ModelReply;
  for (const r of await Promise.all(replies)) {
    const reply = r as ModelReply;
    assert.deepEqual(reply.message, { role: "assistant", content: SHOWN });
    byReasoning(reply.usage.completion_tokens, without.usage.completion_tokens);
  }
});

Deno.test("a garbled chunk after reasoning counts the reasoning's characters in its estimate", async () => {
  const tokens = await lostTokens(
    sseOf(
      [{ role: "assistant" }, { reasoning_content: REASONING }, { content: SHOWN }],
      "data: {oops\n\n",
    ),
    true,
  );
  // The rough estimate of what had arrived: 4 characters a token.
  assert.equal(tokens, Math.ceil((REASONING.length + SHOWN.length) / 4));
});

Deno.test("a malformed plain body without usage counts its reasoning in its lost reply", async () => {
  await loadTokenizer();
  const body = (extra: Record<string, unknown>) =>
    JSON.stringify({
      choices: [{
        finish_reason: "stop",
        message: { role: "assistant", content: SHOWN, tool_calls: "not an array", ...extra },
      }],
    });
  const withReasoning = await lostTokens(body({ reasoning_content: REASONING }), false);
  const without = await lostTokens(body({}), false);
  assert.equal(withReasoning - without, countTokens(REASONING));
  // One field or the other, not both: a server that sends both sends the same words.
  const both = await lostTokens(
    body({ reasoning_content: REASONING, reasoning: REASONING }),
    false,
  );
  assert.equal(both, withReasoning);
  const emptyFirst = await lostTokens(body({ reasoning_content: "", reasoning: REASONING }), false);
  assert.equal(emptyFirst, withReasoning);
});
