// The inspector's reply box (sent again after a lost answer: appended once) and "Fork from here" in a real browser (Debian's chromium,
// driven by conversation_driver.ts in its own process) against the real server. Fails
// (never skips) when chromium is missing.
import assert from "node:assert/strict";
import { requireChromium, runDriver, startBrowserServer } from "./browser_server.ts";

const TOKEN = "conversation-browser-token";

Deno.test("the inspector in chromium: reply to a finished run, fork from a turn after its quote", async () => {
  await requireChromium("the conversation browser test");
  await using server = await startBrowserServer({ token: TOKEN, prefix: "reins-conversation-" });
  const { base, dir } = server;
  // deno-lint-ignore no-explicit-any
  const api = async (path: string): Promise<any> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return await res.json();
  };
  const shot = Deno.env.get("CONVERSATION_SCREENSHOT") ?? `${dir}/fork.png`;
  const r = await runDriver("conversation_driver.ts", [base, TOKEN, shot]);
  assert.deepEqual(r.pageErrors, []);
  const plan = await api(`/runs/${r.plan}`);
  assert.equal(plan.status, "completed");
  assert.equal(plan.turns, 4, "the follow-up was answered in the same run, once");
  assert.equal(r.asked, 1, "the message sent again after a lost answer is appended once");
  assert.equal(r.keys.length, 2);
  assert.match(r.keys[0], /^[0-9a-f]{32}$/);
  assert.equal(r.keys[1], r.keys[0], "the retry carries the same Idempotency-Key");
  assert.equal(r.runsQuoted, r.runsBefore, "a quote creates nothing");
  assert.match(r.quote, /^Turn 2 would send [\d,]+ prompt tokens \(\$0\.\d{6}\)/);
  const fork = await api(`/runs/${r.fork}`);
  assert.deepEqual(fork.forkedFrom, { runId: r.plan, turn: 1 });
  assert.equal(fork.status, "completed");
  assert.match(r.origin, /^Forked from \S+ at turn 1$/);
  assert.equal(fork.toolRuns, 0, "the repeated read was replayed");
  const tokens = Number(r.quote.match(/send ([\d,]+) prompt/)[1].replaceAll(",", ""));
  const events = await (await fetch(`${base}/runs/${r.fork}/events?follow=false`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })).text();
  assert.match(events, new RegExp(`"type":"turn"[^\\n]*"prompt_tokens":${tokens},`));
});
