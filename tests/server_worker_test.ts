// The worker without queues: runs are claimed through their lease (sweeps and
// requests racing execute a run once), a stopped worker hands its runs over
// (`running`, no lease, not a person's Stop), and a starting worker resumes what
// dead, stopped or older processes left.
import assert from "node:assert/strict";
import { newRun, type RunState } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { EVICTION_REASON, SHUTDOWN_REASON } from "../runtime/executor.ts";
import { requestStop } from "../runtime/stop_tree.ts";
import { startWorker } from "../runtime/worker.ts";
import { demoDeps } from "../demo/process.ts";
import { settled, type TestServer, waitFor, withServer } from "./server_helpers.ts";

/** A run as an older version left it on shutdown: `interrupted/cancelled` with SHUTDOWN_REASON. */
function shutDownByOldVersion(task: string): RunState {
  const s = newRun(task, { model: "echo" });
  s.status = "interrupted";
  s.interruption = { type: "cancelled", reason: SHUTDOWN_REASON };
  s.stopReason = `cancelled: ${SHUTDOWN_REASON}`;
  return s;
}

async function midTool(s: TestServer, id: string): Promise<void> {
  await waitFor(
    async () =>
      (await s.store.events(id)).some((e) => e.event.type === "tool_progress") || undefined,
    "scan_archive under way",
  );
}

async function turnsOf(store: KvRunStore, id: string): Promise<number[]> {
  return (await store.events(id)).flatMap((e) => e.event.type === "turn" ? [e.event.turn] : []);
}

Deno.test("sweeps racing a request and each other execute a run once (the lease decides)", () =>
  withServer({}, async (s) => {
    const root = await Deno.makeTempDir({ prefix: "reins-other-" });
    const other = startWorker({
      kv: s.kv,
      store: new KvRunStore(s.kv, { owner: "other" }),
      ...demoDeps({ scripted: true, scan: { ms: 300 }, chunkMs: 0 }),
      workspaceRoot: root,
      pollMs: 20,
    }, { everyMs: 0 });
    try {
      const id = (await s.call("POST", "/runs", { task: "t", scenario: "plan" })).body.runId;
      await Promise.all([s.worker.sweep(), other.sweep(), s.worker.sweep(true), other.sweep()]);
      await settled(s, id);
      await Promise.all([s.worker.executor.idle(), other.executor.idle()]);
      assert.equal((await s.call("GET", `/runs/${id}`)).body.turns, 3);
      assert.deepEqual(await turnsOf(s.store, id), [1, 2, 3]);
    } finally {
      await other.stop();
      await Deno.remove(root, { recursive: true });
    }
  }));

Deno.test("a stopped worker hands its run over: running, no lease; another worker finishes it at the same cost", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-handover-" });
  try {
    let reference = 0;
    await withServer({ scan: { ms: 50 } }, async (s) => {
      const id = (await s.call("POST", "/runs", { task: "scan", scenario: "slow" })).body.runId;
      reference = (await settled(s, id)).costUsd;
    });
    let id = "";
    await withServer({ kvPath: `${dir}/runs.sqlite`, scan: { ms: 3000 } }, async (s) => {
      id = (await s.call("POST", "/runs", { task: "scan", scenario: "slow" })).body.runId;
      await midTool(s, id);
      await s.worker.stop(); // as on SIGINT
      const stored = await s.store.load(id);
      assert.equal(stored.status, "running");
      assert.equal(stored.interruption, null);
      assert.equal(await s.store.leaseHolder(id), null);
      // Not a stop: the trace says the run was handed over, and by whom.
      const events = (await s.store.events(id)).map((e) => e.event);
      const last = events.at(-1);
      assert.equal(last?.type, "run_handed_over");
      assert.deepEqual(last?.type === "run_handed_over" && [last.reason, last.by], [
        EVICTION_REASON,
        s.store.owner,
      ]);
      assert.equal(events.filter((e) => e.type === "run_stopped").length, 0);
    });
    await withServer({ kvPath: `${dir}/runs.sqlite`, scan: { ms: 50 } }, async (s) => {
      await s.worker.recovered;
      const done = await settled(s, id);
      assert.equal(done.status, "completed");
      assert.equal(done.costUsd, reference);
      assert.deepEqual(await turnsOf(s.store, id), [1, 2]);
      const types = (await s.store.events(id)).map((e) => e.event.type);
      assert.equal(types.filter((t) => t === "run_stopped").length, 1);
      assert.equal(types.filter((t) => t === "run_handed_over").length, 1);
      assert.equal(types.at(-1), "run_stopped");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a person's Stop during a worker's stop stays a Stop", () =>
  withServer({ scan: { ms: 3000 } }, async (s) => {
    const id = (await s.call("POST", "/runs", { task: "scan", scenario: "slow" })).body.runId;
    await midTool(s, id);
    await requestStop(s.kv, id, "enough");
    await s.worker.stop();
    const stored = await s.store.load(id);
    assert.equal(stored.status, "interrupted");
    assert.equal(stored.interruption?.type, "cancelled");
    const types = (await s.store.events(id)).map((e) => e.event.type);
    assert.equal(types.at(-1), "run_stopped");
    assert.ok(!types.includes("run_handed_over"));
  }));

Deno.test("a worker starting up resumes runs left running and runs an older version shut down", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-recover-" });
  const kvPath = `${dir}/runs.sqlite`;
  try {
    const orphan = newRun("hi there", { model: "echo" }); // a dead process left it running
    const old = shutDownByOldVersion("from before");
    const stopped = shutDownByOldVersion("stopped by a person too");
    {
      const kv = await Deno.openKv(kvPath);
      const store = new KvRunStore(kv);
      for (const s of [orphan, old, stopped]) await store.save(s);
      await requestStop(kv, stopped.runId, "no");
      kv.close();
    }
    await withServer({ kvPath }, async (s) => {
      await s.worker.recovered;
      assert.equal((await settled(s, orphan.runId)).output, "hi there");
      assert.equal((await settled(s, old.runId)).output, "from before");
      assert.equal((await s.store.load(stopped.runId)).status, "interrupted");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a request nudges a sweep: a run left running by a dead process resumes", () =>
  withServer({}, async (s) => {
    await s.worker.recovered;
    const orphan = newRun("found by a request", { model: "echo" });
    await new KvRunStore(s.kv).save(orphan);
    await new Promise((r) => setTimeout(r, 2100)); // past the nudge gap of the start-up sweep
    assert.equal((await s.call("GET", "/runs")).status, 200);
    assert.equal((await settled(s, orphan.runId)).output, "found by a request");
  }));

Deno.test("startWorker can be stopped before anything happens", async () => {
  const kv = await Deno.openKv(":memory:");
  const worker = startWorker({ kv, store: new KvRunStore(kv), agents: demoDeps().agents });
  await worker.recovered;
  await worker.stop();
  kv.close();
  assert.equal(worker.executor.executing, 0);
  assert.deepEqual(await worker.sweep(), []);
});
