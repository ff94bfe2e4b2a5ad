// The budget picture and the limit-raising Resume as the server renders them, the
// inspector's run fragments, and a Stop's time in the API (ISO 8601, like every other).
import assert from "node:assert/strict";
import { settled, withServer } from "./server_helpers.ts";
import { renderBudget } from "../server/inspector/budget_picture.ts";
import { percentOf, spentText, usdPair } from "../harness/spend_text.ts";

Deno.test("spentText shows an overshoot however small", () => {
  assert.equal(spentText(0.01078, 0.01), "spent $0.010780 of $0.010000 (108%)");
  assert.equal(spentText(0.0100004, 0.01), "spent $0.0100004 of $0.0100000 (100.004%)");
  assert.equal(spentText(0.0099996, 0.01), "spent $0.0099996 of $0.0100000 (99.996%)");
  assert.deepEqual(usdPair(0.01, 0.01), ["$0.010000", "$0.010000"]);
  assert.equal(percentOf(0, 0), "0%");
  assert.equal(percentOf(0.001538, 1), "0.2%");
  assert.equal(percentOf(0, 1), "0%");
});

Deno.test("the budget card: words, a red overshoot, one mark per call, the budget line", () => {
  const calls = [0.004, 0.005, 0.00178].map((costUsd, i) => ({
    runId: i === 1 ? "r.call_0_0" : "r",
    turn: i + 1,
    costUsd,
    at: `2026-01-01T00:00:0${i}.000Z`,
  }));
  const card = String(renderBudget({ budgetUsd: 0.01, spentUsd: 0.01078, calls }, "r"));
  assert.match(card, /<b>\$0\.010780<\/b> of \$0\.010000 \(108%\)/);
  assert.match(card, /over by \$0\.000780/);
  assert.match(card, /class="bar-over" x="[\d.]+" y="0" width="[1-9][\d.]*"/);
  assert.equal(card.match(/<g class="call/g)?.length, 3);
  assert.equal(card.match(/<g class="call over"/g)?.length, 1);
  assert.match(card, /call 2 \(call_0_0, turn 2\): \$0\.005000, total \$0\.009000/);
  assert.match(card, /class="budget-line"/);
  const under = String(renderBudget({ budgetUsd: 0.01, spentUsd: 0.004, calls: [] }, "r"));
  assert.doesNotMatch(under, /bar-over/);
  assert.match(under, /\$0\.006000 left/);
});

Deno.test("a run stopped by its budget: the page's parts carry the budget card and Resume with a budget field", async () => {
  await withServer({}, async (s) => {
    const made = await s.call("POST", "/runs", {
      task: "x",
      scenario: "runaway",
      limits: { maxBudgetUsd: 0.005 },
    });
    const run = await settled(s, made.body.runId);
    assert.equal(run.status, "budget_exceeded");
    const parts = await s.call("GET", `/ui/parts/runs/${run.runId}`);
    assert.equal(parts.status, 200);
    assert.match(parts.body.budget, new RegExp(`of \\$0\\.005000 \\(\\d+%\\)`));
    assert.equal(parts.body.budget.match(/<g class="call/g)?.length, run.turns);
    assert.match(parts.body.controls, /<form class="resume raise" data-action="resume"/);
    assert.match(parts.body.controls, /name="maxBudgetUsd"[^>]*value="0\.01"/);
    assert.match(parts.body.tree, /class="node-share" title="own calls \$[\d.]+: 100% of the tree/);
  });
});

Deno.test("POST /runs/:id/stop says when, in ISO 8601", async () => {
  await withServer({ scan: { ms: 5_000 } }, async (s) => {
    const made = await s.call("POST", "/runs", { task: "scan", scenario: "slow" });
    const before = Date.now();
    const stop = await s.call("POST", `/runs/${made.body.runId}/stop`, { reason: "enough" });
    assert.equal(stop.status, 202);
    assert.equal(typeof stop.body.at, "string");
    assert.match(stop.body.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Date.parse(stop.body.at) >= before - 5);
    await settled(s, made.body.runId);
  });
});
