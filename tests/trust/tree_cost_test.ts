// Issue 12, class 7: the cost a person reads to decide whether to press Stop
// includes what running children have spent, while they run.
import assert from "node:assert/strict";
import { demoDeps } from "../../demo/process.ts";
import { newRun } from "../../harness/state.ts";
import type { TraceEvent } from "../../harness/trace.ts";
import { addUsd } from "../../harness/cost.ts";
import { sleep } from "../../harness/sleep.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { executeTree } from "../../runtime/execute_tree.ts";
import { TREE_SCENARIOS } from "../../testing/tree_scenarios.ts";
import { researchTool } from "../../subagents/research.ts";
import { createApp } from "../../server/app.ts";
import { requestStop } from "../../runtime/stop_tree.ts";
import { formatUsd } from "../../server/inspector/format.ts";
import { saveQueue } from "../../harness/save_queue.ts";
import { fixture } from "../helpers.ts";

Deno.test("while children scan, the root's stored and served cost is the tree's spend so far", async () => {
  await using f = await fixture("research-slow", { scenarios: TREE_SCENARIOS });
  await using kv = await Deno.openKv(":memory:");
  const store = new KvRunStore(kv);
  const root = newRun("Investigate the archive.");
  await store.save(root);
  // Each node's own model spend, from its `turn` events, and who is scanning.
  const own = new Map<string, number>();
  const scanning = new Set<string>();
  let childResults = 0;
  const trace = (e: TraceEvent) => {
    if (e.type === "turn") own.set(e.runId, addUsd(own.get(e.runId) ?? 0, e.turnCostUsd));
    if (e.type === "tool_progress" && e.runId !== root.runId) scanning.add(e.runId);
    if (e.type === "tool_result" && e.runId !== root.runId) childResults++;
  };
  const tools = [researchTool({ workspace: f.ws, scan: { ms: 4000, every: 100 } })];
  const executing = executeTree(store, kv, root.runId, { model: f.model, tools, trace });
  const app = createApp({ kv, store, ...demoDeps({ scripted: true }) });
  try {
    while (scanning.size < 2) await sleep(10);
    const spent = () => [...own.values()].reduce(addUsd, 0);
    assert.equal(own.size, 3, "the root and both children have had a turn");
    // A save of the parent's cost is at a bounded rate: give it a moment (not a timed assertion).
    let summary = await store.summary(root.runId);
    for (let i = 0; i < 100 && summary.costUsd !== spent(); i++) {
      await sleep(20);
      summary = await store.summary(root.runId);
    }
    assert.equal(childResults, 0, "the children are still scanning");
    assert.ok(spent() > own.get(root.runId)!, "the children have spent");
    assert.equal(summary.costUsd, spent(), "store summary of the root while children scan");
    const served = await (await app.request(`/runs/${root.runId}`)).json();
    assert.equal(served.costUsd, spent(), "GET /runs/:id of the root while children scan");
    const listed = await (await app.request(`/runs`)).json();
    const row = listed.runs.find((r: { runId: string }) => r.runId === root.runId);
    assert.equal(row.costUsd, spent(), "GET /runs row of the root while children scan");
    const page = await (await app.request(`/ui/runs/${root.runId}`)).text();
    assert.ok(
      page.includes(`Cost so far</dt><dd class="cost">${formatUsd(spent())}`),
      "the inspector's run page shows the tree's spend as the cost so far",
    );
    const list = await (await app.request(`/ui/parts/runs`)).json();
    assert.ok(list.html.includes(formatUsd(spent())), "the inspector's list shows it too");
    assert.equal(childResults, 0, "the children were still scanning when the figures were read");
  } finally {
    await requestStop(kv, root.runId, "test over");
    await executing;
  }
  // Stopped mid-scan: the stored root cost is still every node's own spend added up.
  const stopped = await store.load(root.runId);
  assert.equal(stopped.status, "interrupted");
  assert.equal(stopped.costUsd, [...own.values()].reduce(addUsd, 0));
});

Deno.test("a run's saves never overlap, and children's spend saves at a bounded rate", async () => {
  let saving = 0;
  let overlapped = false;
  let saves = 0;
  const q = saveQueue(async () => {
    overlapped ||= saving > 0;
    saving++;
    saves++;
    await sleep(5);
    saving--;
  }, 50);
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) {
    q.spent();
    if (i % 5 === 0) void q.checkpoint();
    await sleep(2);
  }
  await sleep(80); // the trailing spend save
  const windows = Math.ceil((performance.now() - t0) / 50);
  await q.close();
  q.spent(); // after the run ended: ignored
  await sleep(80);
  assert.equal(overlapped, false, "two saves of one run ran at once");
  // At most one spend save per 50 ms window, whatever the machine's speed.
  assert.ok(saves <= 4 + windows + 1, `${saves} saves for 20 spends in ${windows} windows`);
  assert.ok(saves >= 4 + 1 + 1, `${saves}: the trailing spend after the last checkpoint was saved`);
});
