// The run inspector in a real browser: Debian's chromium driven by
// playwright-core (in `inspector_driver.ts`, its own process: playwright
// needs more of the system than the test runner is allowed), against the
// real server (`demo/main.ts` on a free port, a temp KV file, the scripted
// provider, a bearer token). The driver watches a slow tree's progress bar
// move, Stops it, rejects badly and approves a destructive run (pressing
// Approve again after a lost answer: the same Idempotency-Key, approved once),
// and sees the API's 409 for a stale verdict; this test then checks the outcome through
// the API. Fails (never skips) when chromium is missing.
//
// Set UPDATE_SCREENSHOT=1 to write docs/inspector.png (the slow tree mid-scan).
import assert from "node:assert/strict";
import { ROOT } from "../run_script.ts";
import { requireChromium, runDriver, startBrowserServer } from "./browser_server.ts";

const TOKEN = "inspector-browser-token";

Deno.test("the inspector in chromium: watch a tree, Stop it, reject, approve", async () => {
  await requireChromium("the inspector's browser test");
  const started = Date.now();
  await using server = await startBrowserServer({
    token: TOKEN,
    prefix: "reins-inspector-",
    env: { REINS_SCAN_MS: "6000" },
  });
  const { base, dir } = server;
  // deno-lint-ignore no-explicit-any
  const api = async (path: string): Promise<any> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = await res.json();
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(body)}`);
    return body;
  };
  const screenshot = Deno.env.get("UPDATE_SCREENSHOT") === "1"
    ? `${ROOT}docs/inspector.png`
    : `${dir}/inspector.png`;
  const result = await runDriver("inspector_driver.ts", [base, TOKEN, screenshot]);

  // What the page showed, through the API: the whole tree stopped by the page's Stop,
  // the destructive run approved from the page.
  assert.equal(result.nodes.length, 3);
  for (const id of result.nodes) {
    const run = await api(`/runs/${encodeURIComponent(id)}`);
    assert.equal(run.status, "interrupted", id);
    assert.deepEqual(run.interruption, {
      type: "cancelled",
      reason: "enough scanning (from the page)",
    });
  }
  const approved = await api(`/runs/${result.destructive}`);
  assert.equal(approved.status, "completed");
  assert.equal(result.approveKeys.length, 2);
  assert.match(result.approveKeys[0], /^[0-9a-f]{32}$/);
  assert.equal(result.approveKeys[1], result.approveKeys[0], "Approve again: the same key");
  const events = await (await fetch(`${base}/runs/${result.destructive}/events?follow=false`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })).text();
  assert.equal(events.match(/"type":"tool_start"[^\n]*"toolName":"delete_file"/g)?.length, 1);
  assert.ok((await Deno.stat(screenshot)).size > 10_000, "a screenshot was saved");
  console.log(
    `inspector in chromium: progress ${result.progress.join(" -> ")}, ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
});
