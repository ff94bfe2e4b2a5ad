import assert from "node:assert/strict";
import { computeCost, roundUsd } from "../harness/cost.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { parseConfig } from "../runtime/config.ts";
import { newRun, run } from "../mod.ts";

const PRICES = {
  inputPerMillion: 2,
  outputPerMillion: 12,
  cachedInputPerMillion: 0.5,
  cacheWritePerMillion: 2.5,
};

Deno.test("cached prompt tokens are priced at the cached-input rate", () => {
  const usd = computeCost(
    { prompt_tokens: 1000, completion_tokens: 100, cached_prompt_tokens: 800 },
    PRICES,
  );
  // 200 fresh at $2/M + 800 cached at $0.50/M + 100 out at $12/M
  assert.equal(roundUsd(usd), roundUsd((200 * 2 + 800 * 0.5 + 100 * 12) / 1e6));
});

Deno.test("cache writes are priced at the cache-write rate", () => {
  const usd = computeCost({
    prompt_tokens: 1000,
    completion_tokens: 0,
    cached_prompt_tokens: 100,
    cache_write_tokens: 600,
  }, PRICES);
  assert.equal(roundUsd(usd), roundUsd((300 * 2 + 100 * 0.5 + 600 * 2.5) / 1e6));
});

Deno.test("cached tokens cost the input rate when the prices set no cached rate", () => {
  const plain = { inputPerMillion: 2, outputPerMillion: 12 };
  const usage = { prompt_tokens: 1000, completion_tokens: 10 };
  assert.equal(
    computeCost({ ...usage, cached_prompt_tokens: 900, cache_write_tokens: 100 }, plain),
    computeCost(usage, plain),
  );
});

Deno.test("a usage reporting more cached than prompt tokens never costs less than all cached", () => {
  const usd = computeCost(
    { prompt_tokens: 100, completion_tokens: 0, cached_prompt_tokens: 5000, cache_write_tokens: 9 },
    PRICES,
  );
  assert.equal(roundUsd(usd), roundUsd((100 * 0.5) / 1e6));
});

Deno.test("reins.jsonc accepts cached-input and cache-write prices", () => {
  const config = parseConfig(
    '{ "prices": { "default": { "inputPerMillion": 3, "outputPerMillion": 15, ' +
      '"cachedInputPerMillion": 0.3, "cacheWritePerMillion": 3.75 } } }',
    "reins.jsonc",
  );
  assert.deepEqual(config.prices, {
    default: {
      inputPerMillion: 3,
      outputPerMillion: 15,
      cachedInputPerMillion: 0.3,
      cacheWritePerMillion: 3.75,
    },
  });
  assert.throws(
    () =>
      parseConfig(
        '{ "prices": { "inputPerMillion": 1, "outputPerMillion": 1, "cachedInputPerMillion": -1 } }',
        "x",
      ),
    /prices\.cachedInputPerMillion: expected a non-negative number/,
  );
});

function endpoint(usage: Record<string, unknown>): typeof fetch {
  return () =>
    Promise.resolve(
      new Response(JSON.stringify({
        choices: [{ finish_reason: "stop", message: { role: "assistant", content: "done" } }],
        usage,
      })),
    );
}

Deno.test("the OpenAI client reads prompt_tokens_details.cached_tokens", async () => {
  const model = createOpenAIModel({
    baseUrl: "http://fake.test/v1",
    model: "m",
    fetch: endpoint({
      prompt_tokens: 2000,
      completion_tokens: 50,
      prompt_tokens_details: { cached_tokens: 1536 },
    }),
  });
  const reply = await model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [] },
    new AbortController().signal,
  );
  assert.deepEqual(reply.usage, {
    prompt_tokens: 2000,
    completion_tokens: 50,
    cached_prompt_tokens: 1536,
  });
});

Deno.test("a run on the OpenAI client is charged the cached rate for cached tokens", async () => {
  const model = createOpenAIModel({
    baseUrl: "http://fake.test/v1",
    model: "m",
    fetch: endpoint({
      prompt_tokens: 2000,
      completion_tokens: 50,
      prompt_tokens_details: { cached_tokens: 1500 },
    }),
  });
  const done = await run(newRun("hi"), { model, prices: PRICES });
  assert.equal(done.status, "completed");
  assert.equal(roundUsd(done.costUsd), roundUsd((500 * 2 + 1500 * 0.5 + 50 * 12) / 1e6));
});

Deno.test("a malformed cached count is ignored, not fatal", async () => {
  const model = createOpenAIModel({
    baseUrl: "http://fake.test/v1",
    model: "m",
    fetch: endpoint({
      prompt_tokens: 10,
      completion_tokens: 1,
      prompt_tokens_details: { cached_tokens: "lots" },
    }),
  });
  const reply = await model.complete(
    { messages: [{ role: "user", content: "hi" }], tools: [] },
    new AbortController().signal,
  );
  assert.deepEqual(reply.usage, { prompt_tokens: 10, completion_tokens: 1 });
});
