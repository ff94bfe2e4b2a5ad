// A summary call is billed as a model turn is, at the summary model's prices:
// its replies lost on the way and a reply with invalid usage are counted as
// estimates (before: nothing was counted, the run failed at the turns' cost);
// a summary no shorter than the turns it replaced is cut to fit under them.
import assert from "node:assert/strict";
import { z } from "zod";
import { run } from "../harness/run.ts";
import { defineTool } from "../harness/tool.ts";
import { newRun } from "../harness/state.ts";
import { memorySink, type TraceEvent } from "../harness/trace.ts";
import { computeCost } from "../harness/cost.ts";
import { ModelError } from "../harness/errors.ts";
import type { Model, ModelReply } from "../harness/model.ts";
import { pad, padWorker } from "./fixtures/padding.ts";

const RUN_PRICES = { inputPerMillion: 1, outputPerMillion: 2 };
const SUMMARY_PRICES = { inputPerMillion: 7, outputPerMillion: 30 };

const worker = padWorker(RUN_PRICES);

async function compacting(summary: (calls: number) => Promise<ModelReply>) {
  let calls = 0;
  const summaryModel: Model = {
    name: "summarizer",
    prices: SUMMARY_PRICES,
    complete: () => summary(++calls),
  };
  const { sink, events } = memorySink();
  const done = await run(newRun("go"), {
    model: worker,
    tools: [pad],
    context: { trigger: { tokens: 600 }, keepTurns: 1, strategies: ["summarize"], summaryModel },
    limits: { maxTurns: 6, maxBudgetUsd: 5 },
    trace: sink,
  });
  return { done, events, calls };
}

const estimates = (events: TraceEvent[]) =>
  events.filter((e): e is Extract<TraceEvent, { type: "spend_estimated" }> =>
    e.type === "spend_estimated"
  );

/** The estimate is priced as the summary model's, never the run's. */
function assertSummaryPriced(e: Extract<TraceEvent, { type: "spend_estimated" }>): void {
  const usage = { prompt_tokens: e.prompt_tokens, completion_tokens: e.completion_tokens ?? 0 };
  assert.ok(e.prompt_tokens > 0, "the summary's prompt is counted");
  assert.equal(e.kind, "compaction", "traced as the summary's, not a turn's");
  assert.equal(e.usd, computeCost(usage, SUMMARY_PRICES));
  assert.notEqual(e.usd, computeCost(usage, RUN_PRICES));
}

Deno.test("a summary with invalid usage is counted as an estimate at its model's prices, then fails", async () => {
  const { done, events } = await compacting(() =>
    Promise.resolve({
      message: { role: "assistant", content: "the facts so far" },
      usage: { prompt_tokens: NaN, completion_tokens: 50 },
      finishReason: "stop",
    })
  );
  assert.equal(done.status, "failed");
  assert.match(done.stopReason ?? "", /^compaction failed: the model reported invalid usage/);
  const [e] = estimates(events);
  assert.ok(e, "before: the summary was not counted at all");
  assertSummaryPriced(e);
  assert.equal(done.estimatedUsd, e.usd);
  const turns = events.filter((t) => t.type === "turn").length;
  assert.equal(
    done.costUsd,
    Math.round(
      (turns * computeCost({ prompt_tokens: 100, completion_tokens: 10 }, RUN_PRICES) + e.usd) *
        1e9,
    ) / 1e9,
  );
});

Deno.test("a summary call that fails after a lost reply counts that reply, at its model's prices", async () => {
  const lost = [{ completion_tokens: 40, reason: "the stream ended before the reply finished" }];
  const { done, events } = await compacting(() =>
    Promise.reject(
      new ModelError("network", "Network error calling the summarizer", undefined, lost),
    )
  );
  assert.equal(done.status, "failed");
  assert.match(done.stopReason ?? "", /^compaction failed: the summary call failed \(network\)/);
  const [e] = estimates(events);
  assert.ok(e, "before: the lost reply was not counted");
  assert.equal(e.completion_tokens, 40);
  assertSummaryPriced(e);
  assert.equal(done.estimatedUsd, e.usd);
});

Deno.test("a summary that arrives after a lost reply counts both; the run goes on", async () => {
  const lost = [{ completion_tokens: 25, reason: "the stream ended before the reply finished" }];
  const { done, events, calls } = await compacting(() =>
    Promise.resolve({
      message: { role: "assistant", content: "pad was called; nothing found" },
      usage: { prompt_tokens: 300, completion_tokens: 12 },
      finishReason: "stop",
      lost,
    })
  );
  assert.equal(done.status, "max_turns_exceeded");
  const found = estimates(events);
  assert.equal(found.length, calls, "one estimate per summary call");
  for (const e of found) {
    assert.equal(e.prompt_tokens, 300, "the prompt the retry reported");
    assertSummaryPriced(e);
  }
});

Deno.test("a summary no shorter than the turns it replaced is cut to fit under them", async () => {
  const verbose = "fact ".repeat(3000).trim();
  const { done, events } = await compacting(() =>
    Promise.resolve({
      message: { role: "assistant", content: verbose },
      usage: { prompt_tokens: 300, completion_tokens: 3000 },
      finishReason: "stop",
    })
  );
  assert.equal(done.status, "max_turns_exceeded");
  const compactions = events.filter((e): e is Extract<TraceEvent, { type: "compaction" }> =>
    e.type === "compaction"
  );
  assert.ok(compactions.length >= 1);
  for (const c of compactions) {
    // Before: 3,000 tokens of summary replaced ~400, and the prompt grew.
    assert.ok(c.tokensAfter < c.tokensBefore, `${c.tokensAfter} < ${c.tokensBefore}`);
    assert.ok(c.summary && verbose.startsWith(c.summary) && c.summary.length < verbose.length);
  }
  assert.equal(done.context?.summary, compactions.at(-1)?.summary);
});

Deno.test("turns smaller than a summary's frame are not summarized: no call, and the run goes on", async () => {
  let n = 0;
  const tiny = defineTool({
    name: "pad",
    description: "Returns ok once, then a long text.",
    parameters: z.object({}),
    readOnly: true,
    run: () => (++n === 1 ? "ok" : "x ".repeat(800)),
  });
  let summaries = 0;
  const summaryModel: Model = {
    name: "summarizer",
    prices: SUMMARY_PRICES,
    complete: () => (summaries++,
      Promise.resolve({
        message: { role: "assistant", content: "pad was called once; it returned ok." },
        usage: { prompt_tokens: 50, completion_tokens: 10 },
        finishReason: "stop",
      })),
  };
  const { sink, events } = memorySink();
  const done = await run(newRun("go"), {
    model: worker,
    tools: [tiny],
    context: { trigger: { tokens: 600 }, keepTurns: 1, strategies: ["summarize"], summaryModel },
    limits: { maxTurns: 6, maxBudgetUsd: 5 },
    trace: sink,
  });
  // Before (the first cut): the summary was cut to nothing and the run failed.
  assert.equal(done.status, "max_turns_exceeded", done.stopReason ?? "");
  const compactions = events.filter((e): e is Extract<TraceEvent, { type: "compaction" }> =>
    e.type === "compaction"
  );
  assert.equal(compactions.length, summaries, "every summary paid for is committed");
  for (const c of compactions) {
    assert.ok(c.tokensAfter < c.tokensBefore);
    assert.equal(c.summary, "pad was called once; it returned ok.");
  }
});
