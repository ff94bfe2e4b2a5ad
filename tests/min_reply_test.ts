// Hard budget mode's useful minimum: a call whose reply the rest of the budget caps
// below `minReplyTokens` is not made; the run stops budget_exceeded saying so.
import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { newBudgetGate, planCall } from "../harness/budget_gate.ts";
import { fixture } from "./helpers.ts";

const task = "Which file mentions a timeout?";

Deno.test("hard budget: a call the rest of the budget caps below minReplyTokens is not made", async () => {
  const calls: (number | undefined)[] = [];
  const base = 0.000246 * 2 + 0.000012 * 12; // about one runaway turn
  for (const minReplyTokens of [undefined, 1, 200]) {
    await using f = await fixture("runaway");
    const model = {
      ...f.model,
      complete: (r: Parameters<typeof f.model.complete>[0], sig: AbortSignal) => (
        calls.push(r.maxTokens), f.model.complete(r, sig)
      ),
    };
    const s = await run(newRun(task), {
      model,
      tools: f.tools,
      limits: { maxTurns: 1000, maxBudgetUsd: base * 3 },
      budgetMode: "hard",
      minReplyTokens,
    });
    const least = minReplyTokens ?? 32;
    assert.ok(calls.every((n) => n === undefined || n >= least), `${least}: ${calls}`);
    assert.equal(s.status, "budget_exceeded");
    if (least > 1) {
      assert.match(
        s.stopReason!,
        new RegExp(
          `fewer than the ${least} a useful reply needs \\(minReplyTokens; hard budget, not called\\)$`,
        ),
      );
    }
    calls.length = 0;
  }
  await using f = await fixture("runaway");
  await assert.rejects(() => run(newRun(task), { model: f.model, minReplyTokens: -1 }), RangeError);
});

Deno.test("planCall: hard mode refuses a reply capped below the minimum, soft mode does not", () => {
  const budget = (hard: boolean, minReplyTokens?: number) =>
    planCall({
      gate: newBudgetGate(),
      hard,
      ownUsd: () => 0.001,
      ancestorsUsd: () => undefined,
      promptUsd: () => 0.00095, // leaves $0.00005: 4 reply tokens at $12 / M
      outputPerMillion: 12,
      minReplyTokens,
    });
  const refused = budget(true);
  assert.equal(refused.type, "refused");
  assert.equal(
    refused.type === "refused" && refused.reason,
    "budget spent: $0.001000 is left, which after the next prompt ($0.000950) buys 4 reply " +
      "tokens, fewer than the 32 a useful reply needs (minReplyTokens; hard budget, not called)",
  );
  assert.deepEqual(budget(true, 4), { type: "call", maxTokens: 4, reservedUsd: 0 });
  assert.deepEqual(budget(false), { type: "call", maxTokens: undefined, reservedUsd: 0 });
});
