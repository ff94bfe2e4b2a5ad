// A call in flight holds a reservation on the tree's budget gate; a sibling
// refused for lack of budget waits for it to settle, then plans again. The
// reservation must give way to the call's cost, not vanish before it: released
// when the reply arrived, a woken sibling planned with neither counted.
import assert from "node:assert/strict";
import { computeCost } from "../harness/cost.ts";
import { callSettled, newBudgetGate } from "../harness/budget_gate.ts";
import type { Model, ModelReply } from "../harness/model.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { pad, padWorker } from "./fixtures/padding.ts";

const prices = { inputPerMillion: 1, outputPerMillion: 4 };
const USAGE = { prompt_tokens: 1000, completion_tokens: 1000 };

/** A model that says when its call is in flight, and answers at once. */
function signalling(reply: () => ModelReply): { model: Model; inFlight: Promise<void> } {
  const { promise, resolve } = Promise.withResolvers<void>();
  const model: Model = {
    name: "m",
    prices,
    complete: () => {
      resolve();
      return Promise.resolve(reply());
    },
  };
  return { model, inFlight: promise };
}

Deno.test("a model call's reservation is released only once its cost is told to the ancestors", async () => {
  const gate = newBudgetGate();
  let told = 0;
  const { model, inFlight } = signalling(() => ({
    message: { role: "assistant", content: "done" },
    usage: USAGE,
    finishReason: "stop",
  }));
  const done = run(newRun("Answer."), {
    model,
    budgetLink: { gate, remainingUsd: () => 10, spend: (usd) => (told += usd, Promise.resolve()) },
  });
  await inFlight; // the call holds its reservation now
  assert.equal(gate.inFlight, 1);
  await callSettled(gate, new AbortController().signal); // what a refused sibling waits for
  const toldAtWake = told;
  const final = await done;
  assert.equal(final.status, "completed");
  assert.ok(final.costUsd > 0);
  assert.equal(toldAtWake, final.costUsd, "woken before the call's cost was counted");
});

Deno.test("a summary call's reservation is released only once its cost is told to the ancestors", async () => {
  const gate = newBudgetGate();
  let told = 0;
  let toldWhenAsked = -1;
  const summaryPrices = { inputPerMillion: 0.5, outputPerMillion: 2 };
  const { model: summaryModel, inFlight } = signalling(() => {
    if (toldWhenAsked < 0) toldWhenAsked = told; // the first summary's (a later one may follow)
    return {
      message: { role: "assistant", content: "The files were listed." },
      usage: USAGE,
      finishReason: "stop",
    };
  });
  const done = run(newRun("go"), {
    model: padWorker(prices),
    tools: [pad],
    context: {
      trigger: { tokens: 600 },
      keepTurns: 1,
      strategies: ["summarize"],
      summaryModel: { ...summaryModel, prices: summaryPrices },
    },
    limits: { maxTurns: 4, maxBudgetUsd: 5 },
    budgetLink: { gate, remainingUsd: () => 10, spend: (usd) => (told += usd, Promise.resolve()) },
  });
  await inFlight;
  await callSettled(gate, new AbortController().signal);
  const toldAtWake = told;
  await done;
  assert.ok(toldWhenAsked >= 0, "the summary was asked for");
  assert.ok(
    Math.abs(toldAtWake - toldWhenAsked - computeCost(USAGE, summaryPrices)) < 1e-12,
    `woken with ${toldAtWake - toldWhenAsked} of the summary's cost told`,
  );
});
