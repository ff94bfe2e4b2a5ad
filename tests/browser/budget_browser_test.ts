// The budget picture and the limit-raising Resume in a real browser: Debian's
// chromium driven by playwright-core (in `budget_driver.ts`, its own process)
// against the real server (scripted provider, a temp KV file, a bearer token).
// The driver reads the budget card of a run that went over a soft budget,
// resumes it with a raised budget and another with a raised turn cap, checks the
// verdict wording and the Approve notice, and a tree at 420 px; this test then
// checks the outcome through the API. Fails (never skips) when chromium is missing.
//
// Set UPDATE_SCREENSHOT=1 to write docs/budget.png (the run page with the budget card).
import assert from "node:assert/strict";
import { ROOT } from "../run_script.ts";
import { requireChromium, runDriver, startBrowserServer } from "./browser_server.ts";

const TOKEN = "budget-browser-token";

Deno.test("the inspector in chromium: the budget as a picture, Resume raising a limit, 420 px", async () => {
  await requireChromium("the budget picture's browser test");
  await using server = await startBrowserServer({
    token: TOKEN,
    prefix: "reins-budget-",
    env: { REINS_SCRIPTED_CHUNK_MS: "0" },
  });
  const { base, dir } = server;
  const screenshot = Deno.env.get("UPDATE_SCREENSHOT") === "1"
    ? `${ROOT}docs/budget.png`
    : `${dir}/budget.png`;
  const r = await runDriver("budget_driver.ts", [base, TOKEN, screenshot]);
  const run = async (id: string) =>
    await (await fetch(`${base}/runs/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
      .json();
  // Resumed from the page with the budget raised: it spent more, up to its new budget.
  const budget = await run(r.budget.runId);
  assert.equal(budget.limits.maxBudgetUsd, 0.02);
  assert.equal(budget.status, "budget_exceeded");
  assert.ok(budget.costUsd > r.budget.before && budget.costUsd >= 0.02, `${budget.costUsd}`);
  // Resumed with the turn cap raised from 3 to 5.
  const turns = await run(r.turns.runId);
  assert.deepEqual([turns.limits.maxTurns, turns.turns, turns.status], [
    5,
    5,
    "max_turns_exceeded",
  ]);
  assert.ok((await Deno.stat(screenshot)).size > 10_000, "a screenshot was saved");
  console.log(
    `budget card: resumed ${r.budget.before} -> ${budget.costUsd} USD; turn cap 3 -> 5; ` +
      `Approved notice gone ${r.verdict.approvedNoticeGoneMs} ms after the click; ` +
      `420 px: page ${r.narrow.widths.page} px, shares ${r.narrow.shares.join(" ")}`,
  );
});
