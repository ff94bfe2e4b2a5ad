// A reasoning model writes words it does not show: `reasoning_content`
// (DeepSeek, vLLM), `reasoning` (OpenRouter, Ollama), or `thinking` content
// parts (Mistral). The provider bills them as reply tokens. When such a reply
// is lost (a stream cut, a garbled chunk, a malformed body without usage),
// the estimate counted only the words shown, and missed what may be most of
// the reply.
import assert from "node:assert/strict";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { ModelError } from "../harness/errors.ts";
import { countTokens, loadTokenizer } from "../harness/tokens.ts";

const REASONING = "First I list the files, then I read each log and look for a timeout. ".repeat(
  20,
);
const SHOWN = "The answer";

/** The lost reply's tokens of one call whose endpoint answers `body` (`sse`: streamed). */
async function lostTokens(body: string, sse: boolean): Promise<number> {
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
  const e = await model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [] },
    new AbortController().signal,
  ).then(() => null, (e: unknown) => e);
  assert.ok(e instanceof ModelError, `expected a ModelError, got ${e}`);
  assert.equal(e.lost.length, 1, e.message);
  return e.lost[0]!.completion_tokens;
}

/** An SSE body of these deltas (no finish_reason: cut), then `tail` (raw text). */
function sseOf(deltas: Record<string, unknown>[], tail = ""): string {
  return deltas.map((delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`)
    .join("") + tail;
}

const FIELDS = [
  ["reasoning_content", (text: string) => ({ reasoning_content: text })],
  ["reasoning", (text: string) => ({ reasoning: text })],
  ["a thinking part", (text: string) => ({ content: [{ type: "thinking", thinking: text }] })],
] as const;

for (const [name, delta] of FIELDS) {
  Deno.test(`a stream cut after ${name} counts the reasoning in its lost reply`, async () => {
    await loadTokenizer();
    const halves = [REASONING.slice(0, 700), REASONING.slice(700)];
    const withReasoning = await lostTokens(
      sseOf([{ role: "assistant" }, delta(halves[0]!), delta(halves[1]!), { content: SHOWN }]),
      true,
    );
    const without = await lostTokens(sseOf([{ role: "assistant" }, { content: SHOWN }]), true);
    // Counted locally (o200k): the reasoning's tokens more, give or take the JSON around a part.
    const reasoning = countTokens(REASONING);
    assert.ok(withReasoning - without >= reasoning, `${withReasoning} - ${without} < ${reasoning}`);
    assert.ok(withReasoning - without <= reasoning + 20, `${withReasoning} - ${without}`);
  });
}

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
});
