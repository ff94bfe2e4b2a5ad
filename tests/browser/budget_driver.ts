// The browser side of tests/browser/budget_browser_test.ts, in its own process
// (see `with_page.ts`). Drives Debian's chromium against the running server:
//
// 1. A run a soft budget stopped over its budget: the budget card says what it spent
//    of what and by how much it went over, the bar has a red overshoot, the curve one
//    dot per model call with the last over the dashed budget line; pointing at a call
//    reads it out. Screenshot. Resume with a raised budget from the page.
// 2. A run stopped by its turn cap: Resume with a raised cap from the page.
// 3. A destructive run: the activity says "Waiting for your verdict: delete_file …"
//    once; Approve's notice goes when the run completes (before its 6 s timer).
// 4. A research tree at 420 px wide: nothing wider than the window, run ids on one
//    line, each node's share of the tree's spend (adding up to 100%).
//
// Usage: deno run -A tests/browser/budget_driver.ts <base-url> <token> <screenshot.png>
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { waitFor as poll } from "../server_http.ts";
import { driverMain, okNotice, withPage } from "./with_page.ts";

const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 50 });

type Api = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

function apiOf(base: string, token: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** Creates a run and waits until it stops; its view. */
async function stoppedRun(api: Api, body: unknown) {
  const id = (await api("POST", "/runs", body)).runId as string;
  return await waitFor(async () => {
    const r = await api("GET", `/runs/${encodeURIComponent(id)}`);
    return r.status !== "running" ? r : undefined;
  }, `run ${id} to stop`);
}

async function overBudget(page: Page, base: string, api: Api, screenshot: string) {
  const run = await stoppedRun(api, {
    task: "Which file mentions a timeout?",
    scenario: "runaway",
    limits: { maxBudgetUsd: 0.0105 },
  });
  assert.equal(run.status, "budget_exceeded");
  await page.goto(`${base}/ui/runs/${run.runId}`);
  const words = await page.locator("#budget .budget-words").innerText();
  const spent = (run.costUsd as number).toFixed(6);
  const over = ((run.costUsd as number) - 0.0105).toFixed(6);
  const pct = Math.round(((run.costUsd as number) / 0.0105) * 100);
  assert.equal(words, `$${spent} of $0.010500 (${pct}%) over by $${over}`);
  const overWidth = Number(await page.locator("#budget .bar-over").getAttribute("width"));
  assert.ok(overWidth > 0, "the bar shows the overshoot");
  const calls = page.locator("#budget .spend-chart g.call");
  assert.equal(await calls.count(), run.turns);
  assert.equal(await page.locator("#budget .spend-chart g.call.over").count(), 1);
  assert.equal(await page.locator("#budget .budget-line").count(), 1);
  await calls.last().locator("circle").hover();
  const readout = await page.locator("#budget .spend-readout").innerText();
  const said = new RegExp(
    `^call ${run.turns} \\(root, turn ${run.turns}\\): \\$0\\.\\d{6}, total \\$${spent}$`,
  );
  assert.match(readout, said);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: screenshot });
  // Resume with a raised budget, from the page.
  await page.fill("#controls input[name=maxBudgetUsd]", "0.02");
  await page.click("#controls form.raise button[type=submit]");
  await okNotice(page, "Resumed with the new limit");
  const again = await waitFor(async () => {
    const r = await api("GET", `/runs/${run.runId}`);
    return r.status !== "running" && (r.limits as { maxBudgetUsd: number }).maxBudgetUsd === 0.02
      ? r
      : undefined;
  }, "the resumed run to stop at its new budget");
  return { runId: run.runId, before: run.costUsd, after: again.costUsd, status: again.status };
}

async function turnCap(page: Page, base: string, api: Api) {
  const run = await stoppedRun(api, {
    task: "Which file mentions a timeout?",
    scenario: "runaway",
    limits: { maxTurns: 3 },
  });
  assert.equal(run.status, "max_turns_exceeded");
  await page.goto(`${base}/ui/runs/${run.runId}`);
  await page.locator("#controls h2", { hasText: "Stopped by its turn cap" }).waitFor();
  await page.fill("#controls input[name=maxTurns]", "5");
  await page.click("#controls form.raise button[type=submit]");
  const again = await waitFor(async () => {
    const r = await api("GET", `/runs/${run.runId}`);
    return r.status !== "running" && r.turns === 5 ? r : undefined;
  }, "the resumed run to stop at its new cap");
  return { runId: run.runId, turns: again.turns, status: again.status };
}

async function verdictWords(page: Page, base: string, api: Api) {
  const run = await stoppedRun(api, { task: "Free some space", scenario: "destructive" });
  assert.equal(run.status, "interrupted");
  await page.goto(`${base}/ui/runs/${run.runId}`);
  const stopped = page.locator("#activity .ev-run_stopped .ev-text").first();
  await stopped.waitFor();
  const line = await stopped.innerText();
  assert.match(line, /^Waiting for your verdict: delete_file \(call_\d+_\d+\) needs approval · /);
  assert.doesNotMatch(line, /awaiting a verdict/);
  // The notice may come and go between two polls (a quick tree completes at once and
  // completion hides it): a watcher in the page records that it was shown.
  await page.evaluate(`{
    const p = document.getElementById("controls-error");
    const look = () => {
      if (!p.hidden && p.textContent.startsWith("Approved")) globalThis.approvedShown = true;
    };
    new MutationObserver(look).observe(p, { attributes: true, childList: true, subtree: true });
  }`);
  const clicked = Date.now();
  await page.click("#controls button.approve");
  // A function, not a string: the inspector's CSP forbids the page evaluating strings.
  await page.waitForFunction(() =>
    (globalThis as { approvedShown?: boolean }).approvedShown === true
  );
  await page.locator("#summary .badge", { hasText: "Completed" }).waitFor();
  await page.locator("#controls-error").waitFor({ state: "hidden", timeout: 5_500 });
  return { approvedNoticeGoneMs: Date.now() - clicked };
}

async function narrowTree(page: Page, base: string, api: Api) {
  const run = await stoppedRun(api, { task: "Research the logs", scenario: "research" });
  await page.setViewportSize({ width: 420, height: 900 });
  await page.goto(`${base}/ui/runs/${run.runId}`);
  await page.locator("#tree .node-share").nth(2).waitFor();
  await page.locator("#activity .ev").nth(3).waitFor();
  const widths = await page.evaluate(`({
    page: document.documentElement.scrollWidth,
    tree: document.getElementById("tree").scrollWidth,
    treeBox: document.getElementById("tree").clientWidth,
  })`) as { page: number; tree: number; treeBox: number };
  assert.ok(widths.page <= 420, `the page is ${widths.page} px wide at 420`);
  assert.ok(widths.tree <= widths.treeBox, `the tree overflows: ${JSON.stringify(widths)}`);
  // Every run id on one line.
  const lines = await page.evaluate(`[...document.querySelectorAll(".node-id, .ev-node")]
    .map((e) => { const r = document.createRange(); r.selectNodeContents(e);
      return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; })`) as number[];
  assert.ok(lines.length >= 6 && lines.every((n) => n === 1), `run ids on ${lines} lines`);
  const shares = await page.locator("#tree .node-share").allInnerTexts();
  const sum = shares.reduce((n, t) => n + Number(t.replace("%", "")), 0);
  assert.ok(Math.abs(sum - 100) <= 2, `shares ${shares} add up to ${sum}`);
  return { shares, widths };
}

async function drive(base: string, token: string, screenshot: string): Promise<unknown> {
  const api = apiOf(base, token);
  return await withPage(async (page, pageErrors) => {
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.addInitScript(`sessionStorage.setItem("reins.token", ${JSON.stringify(token)})`);
    const budget = await overBudget(page, base, api, screenshot);
    const turns = await turnCap(page, base, api);
    const verdict = await verdictWords(page, base, api);
    const narrow = await narrowTree(page, base, api);
    assert.deepEqual(pageErrors, []);
    return { budget, turns, verdict, narrow };
  });
}

if (import.meta.main) await driverMain("budget_driver.ts", "screenshot.png", drive);
