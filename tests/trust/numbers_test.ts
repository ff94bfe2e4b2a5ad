import assert from "node:assert/strict";
import { newRun } from "../../harness/state.ts";
import { run } from "../../harness/run.ts";
import type { Model } from "../../harness/model.ts";
import { memorySink } from "../../harness/trace.ts";
import { computeCost, type Prices } from "../../harness/cost.ts";
import { checkLimits, DEFAULT_LIMITS, runLimitsSchema } from "../../harness/limits.ts";
import { fixture } from "../helpers.ts";
import { researchTool } from "../../subagents/research.ts";
import { CreateRunSchema } from "../../server/schemas.ts";

/** A model answering with the given usage. */
function usageModel(usage: { prompt_tokens: number; completion_tokens: number }): Model {
  return {
    name: "usage",
    complete: () =>
      Promise.resolve({
        message: { role: "assistant", content: "done" },
        usage,
        finishReason: "stop",
      }),
  };
}

const clean = (x: number) => Number(x.toFixed(9)) === x;

Deno.test("prices must be finite and non-negative", async () => {
  const state = newRun("hi");
  const model = usageModel({ prompt_tokens: 1, completion_tokens: 1 });
  for (const bad of [-1, NaN, Infinity]) {
    await assert.rejects(
      () => run(state, { model, prices: { inputPerMillion: bad, outputPerMillion: 1 } }),
      RangeError,
    );
    await assert.rejects(
      () =>
        run(state, {
          model,
          prices: {
            default: { inputPerMillion: 1, outputPerMillion: 1 },
            models: { usage: { inputPerMillion: 1, outputPerMillion: bad } },
          },
        }),
      RangeError,
    );
  }
});

Deno.test("a bad price is a RangeError naming the field and the value", async () => {
  const state = newRun("hi");
  const model = usageModel({ prompt_tokens: 1, completion_tokens: 1 });
  const cases: [unknown, string][] = [
    [
      { inputPerMillion: -1, outputPerMillion: 1 },
      "prices.inputPerMillion: expected a non-negative number, got -1",
    ],
    [
      { inputPerMillion: 1, outputPerMillion: NaN },
      "prices.outputPerMillion: expected a non-negative number, got NaN",
    ],
    [
      { inputPerMillion: 1 },
      "prices.outputPerMillion: expected a non-negative number, got undefined",
    ],
    [
      { inputPerMillion: 1, outputPerMillion: 1, maxOutputTokens: 0.5 },
      "prices.maxOutputTokens: expected a positive integer, got 0.5",
    ],
    [
      { inputPerMillion: 1, outputPerMillion: 1, inputPerMilion: 1 },
      'prices: unknown key "inputPerMilion"',
    ],
    [{}, "prices.inputPerMillion: expected a non-negative number, got undefined"],
    [
      {
        default: { inputPerMillion: 1, outputPerMillion: 1 },
        models: { "gpt-4.1": { inputPerMillion: 1, outputPerMillion: -2 } },
      },
      'prices.models["gpt-4.1"].outputPerMillion: expected a non-negative number, got -2',
    ],
  ];
  for (const [prices, message] of cases) {
    await assert.rejects(
      () => run(state, { model, prices: prices as Prices }),
      (e: Error) => e instanceof RangeError && e.message === message,
      message,
    );
  }
  await assert.rejects(
    () => run(state, { model: { ...model, prices: { inputPerMillion: -1, outputPerMillion: 1 } } }),
    /^RangeError: model\.prices\.inputPerMillion: expected a non-negative number, got -1$/,
  );
});

Deno.test("a model reporting NaN or negative usage ends the run failed with a reason", async () => {
  for (
    const usage of [
      { prompt_tokens: NaN, completion_tokens: 3 },
      { prompt_tokens: 5, completion_tokens: -2 },
      { prompt_tokens: Infinity, completion_tokens: 1 },
      // Finite, but no count: before, 1e308 tokens were billed (budget_exceeded), 2.5 taken.
      { prompt_tokens: 1e308, completion_tokens: 1 },
      { prompt_tokens: 5, completion_tokens: 2.5 },
    ]
  ) {
    const done = await run(newRun("hi"), {
      model: usageModel(usage),
      limits: { maxBudgetUsd: 0.01 },
    });
    assert.equal(done.status, "failed", JSON.stringify(usage));
    assert.match(done.stopReason ?? "", /usage/);
    assert.ok(Number.isFinite(done.costUsd));
    // The provider answered: its reply may be billed, so it is counted, as an estimate
    // (before: the run ended at $0).
    assert.ok(done.costUsd > 0 && done.estimatedUsd === done.costUsd, JSON.stringify(done));
  }
});

Deno.test("an unbounded budget is refused up front with a clear error", () => {
  assert.throws(() => checkLimits({ maxBudgetUsd: Infinity }), /finite/);
  assert.throws(() => newRun("hi", { limits: { maxBudgetUsd: Infinity } }), RangeError);
});

Deno.test("checkLimits and the stored limits' schema give the same verdicts", () => {
  // checkLimits is plain code (no zod on a fresh process's first run); the schema
  // validates stored runs and config files. Whatever one accepts, so must the other.
  const huge = 2 ** 53; // past a safe integer: a turn cap, not a budget
  const values = [
    0,
    1,
    2,
    1.5,
    -1,
    NaN,
    Infinity,
    -Infinity,
    1e9,
    huge,
    "3",
    null,
    undefined,
    true,
  ];
  let accepted = 0;
  for (const maxTurns of values) {
    for (const maxBudgetUsd of [...values, 0.05]) {
      const limits = { maxTurns, maxBudgetUsd } as never;
      let ok = true;
      try {
        checkLimits(limits);
      } catch (e) {
        assert.ok(e instanceof RangeError, `${JSON.stringify(limits)}: ${e}`);
        ok = false;
      }
      const label = `maxTurns ${String(maxTurns)}, maxBudgetUsd ${String(maxBudgetUsd)}`;
      // A limit given as undefined is not given: the default's verdict.
      const stored = {
        maxTurns: maxTurns === undefined ? DEFAULT_LIMITS.maxTurns : maxTurns,
        maxBudgetUsd: maxBudgetUsd === undefined ? DEFAULT_LIMITS.maxBudgetUsd : maxBudgetUsd,
      };
      assert.equal(ok, runLimitsSchema().safeParse(stored).success, label);
      if (ok) accepted++;
    }
  }
  // maxTurns 1, 2, 1e9 or not given; maxBudgetUsd 0, 1, 2, 1.5, 1e9, 2**53, 0.05 or not given.
  assert.equal(accepted, 4 * 8);
});

Deno.test("a field that is no limit is refused, not dropped or stored", () => {
  assert.throws(
    () => newRun("hi", { limits: { maxTurn: 5 } as never }),
    (e) => e instanceof TypeError && /limits has no field "maxTurn"/.test(e.message),
  );
  assert.throws(() => checkLimits(null as never), TypeError);
  assert.equal(
    runLimitsSchema().safeParse({ maxTurns: 5, maxBudgetUsd: 1, maxTurn: 5 }).success,
    false,
  );
});

Deno.test("money adds up without float drift: state, trace and tree figures", async () => {
  assert.ok(clean(computeCost({ prompt_tokens: 1009, completion_tokens: 37 })));
  await using f = await fixture("research");
  const trace = memorySink();
  const done = await run(newRun("Investigate."), {
    model: f.model,
    tools: [researchTool({ workspace: f.ws })],
    trace: trace.sink,
    prices: { inputPerMillion: 0.1, outputPerMillion: 0.7 },
  });
  assert.equal(done.status, "completed");
  const figures: number[] = [done.costUsd, done.childCostUsd, ...Object.values(done.callSpend)];
  for (const e of trace.events) {
    for (const k of ["costUsd", "turnCostUsd"] as const) {
      const v = (e as unknown as Record<string, unknown>)[k];
      if (typeof v === "number") figures.push(v);
    }
  }
  const dirty = figures.filter((x) => !clean(x));
  assert.deepEqual(dirty, [], `figures with float drift: ${dirty.join(", ")}`);
});

Deno.test("HTTP's capped limits and concurrency say their bounds when refused", () => {
  // Before: 100 concurrency said "expected a positive integer", $0 and $1001 "a non-negative
  // number", 100000 turns "an integer of at least 1": each true of the number, none the rule.
  const said = (body: object) =>
    CreateRunSchema.safeParse({ task: "x", ...body }).error?.issues[0]?.message;
  assert.equal(said({ options: { concurrency: 100 } }), "expected an integer from 1 to 16");
  assert.equal(said({ limits: { maxBudgetUsd: 0 } }), "expected more than 0 USD, at most 1000");
  assert.equal(said({ limits: { maxBudgetUsd: 1001 } }), "expected more than 0 USD, at most 1000");
  assert.equal(said({ limits: { maxTurns: 100_000 } }), "expected an integer from 1 to 1000");
  assert.equal(said({ limits: { maxTurns: 1000, maxBudgetUsd: 1000 } }), undefined);
});
