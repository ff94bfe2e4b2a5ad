// The browser side of tests/browser/inspector_browser_test.ts, in its own
// process (see `with_page.ts`). Drives Debian's chromium against the running server:
//
// 1. A slow run tree: the page asks for the token (a wrong one is refused in
//    place, then the right one is kept for the tab), shows the tree, a
//    child's scan progress bar moves; Stop, its answer lost, then the tree
//    resumed by another client and Stop pressed again: a new key, and it
//    marks every node interrupted.
// 2. A destructive run with a hostile task: nothing of it runs as markup; a
//    reject with an over-long reason shows the API's 413 in place; Approve,
//    its answer lost (and the page's refreshes failing, as offline), then
//    Approve again with the same Idempotency-Key: "Approved", not a 409; it
//    completes, the call approved once.
// 3. A verdict on a call no longer awaiting one shows the API's 409 in place.
//
// Usage: deno run -A tests/browser/inspector_driver.ts <base-url> <token> <screenshot.png>
// Prints one JSON line `{"slow": <root id>, "nodes": [...], "destructive": <id>, "approveKeys":
// [...]}` at the end.
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { waitFor as poll } from "../server_http.ts";
import { driverMain, loseFirstAnswer, okNotice, withPage } from "./with_page.ts";

// Probes that throw (a server not up yet) are retried.
const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 50 });

// Page-side code is given as text: tests are type-checked without the DOM lib.
async function progressValue(page: Page, runId: string): Promise<number> {
  const slot = `[data-tools-for=${JSON.stringify(runId)}] .state-running progress[value]`;
  return Number(
    await page.evaluate(`(document.querySelector(${JSON.stringify(slot)}) || { value: -1 }).value`),
  );
}

async function drive(base: string, token: string, screenshot: string): Promise<unknown> {
  // deno-lint-ignore no-explicit-any
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return await withPage(async (page, pageErrors) => {
    // --- 1. A slow tree: token asked once, progress moves, Stop stops every node.
    const slow = (await api("POST", "/runs", {
      task: "Scan the archive for timeouts, twice.",
      scenario: "research-slow",
    })).runId as string;
    await page.goto(`${base}/ui/runs/${slow}`);
    await page.locator("#auth").waitFor({ state: "visible" });
    await page.fill("#auth-token", "wrong-token");
    await page.click("#auth button[type=submit]");
    await page.locator("#auth-error", { hasText: "the bearer token is wrong" }).waitFor();
    await page.fill("#auth-token", token);
    await page.click("#auth button[type=submit]");
    await page.locator("#auth").waitFor({ state: "hidden" });

    await page.locator("#tree li.node").nth(2).waitFor();
    const nodes = await page.locator("#tree li.node").evaluateAll(
      (lis) => lis.map((li) => li.getAttribute("data-node")!),
    );
    assert.equal(nodes.length, 3);
    assert.equal(nodes[0], slow);
    const child = nodes[1];
    const first = await waitFor(async () => {
      const v = await progressValue(page, child);
      return v > 0 && v < 1 ? v : undefined;
    }, "a child's scan progress bar");
    const later = await waitFor(async () => {
      const v = await progressValue(page, child);
      return v > first ? v : undefined;
    }, "the progress bar to move");
    assert.ok(later > first, `progress ${first} -> ${later}`);
    // The live activity shows turns with their cost.
    const turn = page.locator("#activity .ev-turn").first();
    await turn.waitFor();
    assert.match(await turn.innerText(), /turn 1 .*\$0\.\d+/);
    assert.match(await page.locator("#summary .badge").innerText(), /Running/);
    await page.screenshot({ path: screenshot, fullPage: true });

    // Stop, its answer lost: the page keeps the key for a Stop pressed again. Meanwhile the
    // tree is seen stopped, and another client resumes it: the page's controls change, so
    // the next Stop is a new request, not a replay of the first (which would stop nothing).
    const stopKeys = await loseFirstAnswer(page, "**/runs/*/stop");
    await page.fill("form[data-action=stop] input[name=reason]", "enough scanning (from the page)");
    await page.click("form[data-action=stop] button[type=submit]");
    await page.locator("#controls-error", { hasText: "Stop refused (network)" }).waitFor();
    await page.locator("form[data-action=resume]").waitFor();
    await api("POST", `/runs/${slow}/resume`, {});
    await page.locator("form[data-action=stop]").waitFor();
    await page.fill("form[data-action=stop] input[name=reason]", "enough scanning (from the page)");
    await page.click("form[data-action=stop] button[type=submit]");
    await okNotice(page, "Stop sent");
    await page.unroute("**/runs/*/stop");
    assert.equal(stopKeys.length, 2);
    assert.notEqual(stopKeys[1], stopKeys[0], "a Stop after the tree moved on is a new request");
    await waitFor(async () => {
      const statuses = await page.locator("#tree li.node").evaluateAll(
        (lis) => lis.map((li) => li.getAttribute("data-status")),
      );
      return statuses.length === 3 && statuses.every((s) => s === "interrupted") ? true : undefined;
    }, "every node of the tree to be marked interrupted");
    const badges = await page.locator("#tree li.node > .node-line .badge").allInnerTexts();
    assert.deepEqual(badges, ["Stopped", "Stopped", "Stopped"]);
    await page.locator("#summary .badge", { hasText: "Stopped" }).waitFor();
    assert.match(await page.locator("#summary").innerText(), /enough scanning \(from the page\)/);
    await page.locator(`[data-tools-for="${child}"] .state-stopped`).first().waitFor();
    // The Stop button is gone; Resume is offered instead.
    assert.equal(await page.locator("form[data-action=stop]").count(), 0);
    assert.equal(await page.locator("form[data-action=resume]").count(), 1);

    // --- 2. A destructive run with a hostile task: escaped; a bad reject; Approve.
    const hostile =
      `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> Free space`;
    const destructive = (await api("POST", "/runs", { task: hostile, scenario: "destructive" }))
      .runId as string;
    await waitFor(async () => {
      const run = await api("GET", `/runs/${destructive}`);
      return run.status === "interrupted" ? run : undefined;
    }, "the destructive run to await a verdict");
    await page.goto(`${base}/ui/runs/${destructive}`);
    await page.locator("form[data-action=verdict]").waitFor();
    assert.equal(await page.locator("#auth").isVisible(), false, "the token is asked once");
    assert.equal(await page.locator("#summary .task-title").innerText(), hostile);
    assert.equal(await page.evaluate("typeof window.__pwned"), "undefined");
    assert.match(await page.locator("#summary .badge").innerText(), /Waiting for your verdict/);
    assert.match(await page.locator("form[data-action=verdict]").innerText(), /delete_file/);

    await page.fill("form[data-action=verdict] input[name=reason]", "x".repeat(10_001));
    await page.click("form[data-action=verdict] button[value=reject]");
    const notice = page.locator("#controls-error");
    await page.locator("#controls-error", { hasText: "Reject refused (413)" }).waitFor();
    assert.match(await notice.innerText(), /reason: .*10000/);
    assert.equal((await api("GET", `/runs/${destructive}`)).status, "interrupted");

    // Approve: the server gives the verdict, its answer is lost, and the page cannot
    // refresh (offline), so the button stays; pressed again once back, the same key
    // gets the first answer.
    await page.route("**/ui/parts/**", (route) => route.abort());
    const approveKeys = await loseFirstAnswer(page, "**/runs/*/approve");
    await page.click("form[data-action=verdict] button[value=approve]");
    await page.locator("#controls-error", { hasText: "Approve refused (network)" }).waitFor();
    await waitFor(async () => {
      const run = await api("GET", `/runs/${destructive}`);
      return run.status === "completed" ? run : undefined;
    }, "the approved run to complete");
    await page.click("form[data-action=verdict] button[value=approve]");
    await okNotice(page, "Approved");
    await page.unroute("**/runs/*/approve");
    await page.unroute("**/ui/parts/**");
    await page.locator("#summary .badge", { hasText: "Completed" }).waitFor();
    await page.locator("#transcript .msg.tool", { hasText: "deleted" }).first().waitFor();
    assert.equal((await api("GET", `/runs/${destructive}`)).status, "completed");
    assert.equal(await page.locator("#tree li.node").getAttribute("data-status"), "completed");

    // --- 3. A verdict on a call that no longer awaits one: the API's 409, in place.
    const stale = (await api("POST", "/runs", { task: "Free space", scenario: "destructive" }))
      .runId as string;
    const held = await waitFor(async () => {
      const run = await api("GET", `/runs/${stale}`);
      return run.status === "interrupted" ? run : undefined;
    }, "the second destructive run to await a verdict");
    await page.goto(`${base}/ui/runs/${stale}`);
    await page.locator("form[data-action=verdict]").waitFor();
    // Hold the page's refreshes, decide elsewhere, then press the page's (stale) button.
    await page.route("**/ui/parts/**", (route) => route.abort());
    await api("POST", `/runs/${stale}/reject`, { callId: held.interruption.callId });
    await page.click("form[data-action=verdict] button[value=approve]");
    await page.locator("#controls-error", { hasText: "Approve refused (409)" }).waitFor();
    assert.match(await notice.innerText(), /not awaiting a verdict/);
    await page.unroute("**/ui/parts/**");
    await page.locator("#summary .badge", { hasText: "Completed" }).waitFor();
    assert.match(await notice.innerText(), /Approve refused \(409\)/, "the error stays in place");

    assert.deepEqual(pageErrors, [], "no script error on the page");
    return { slow, nodes, destructive, approveKeys, progress: [first, later] };
  });
}

if (import.meta.main) await driverMain("inspector_driver.ts", "screenshot.png", drive);
