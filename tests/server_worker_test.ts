// The queue worker: idempotent delivery (the lease decides who executes),
// recovery on start of runs left running or stopped by a shutdown, clean stop.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { SHUTDOWN_REASON } from "../runtime/executor.ts";
import { startWorker } from "../server/worker.ts";
import { settled, waitFor, withServer } from "./server_helpers.ts";

Deno.test("duplicate queue messages execute a run once (the lease decides)", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { task: "t", scenario: "plan" })).body.runId;
    for (let i = 0; i < 4; i++) await s.kv.enqueue({ kind: "execute", runId: id });
    await settled(s, id);
    await new Promise((r) => setTimeout(r, 300));
    await s.worker.executor.idle();
    const run = (await s.call("GET", `/runs/${id}`)).body;
    assert.equal(run.turns, 3);
    const turns = (await s.store.events(id)).filter((e) => e.event.type === "turn");
    assert.equal(turns.length, 3);
  }));

Deno.test("a worker starting up resumes runs left running and runs stopped by a shutdown", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-recover-" });
  const kvPath = `${dir}/runs.sqlite`;
  try {
    let slowId = "";
    let orphanId = "";
    await withServer({ kvPath, scan: { ms: 2000 } }, async (s) => {
      slowId = (await s.call("POST", "/runs", { task: "scan", scenario: "slow" })).body.runId;
      await waitFor(
        async () =>
          (await s.store.events(slowId)).some((e) => e.event.type === "tool_progress") || undefined,
        "scan",
      );
      // A run a dead process left `running` (no lease, no queue message).
      const orphan = newRun("hi there", { model: "echo" });
      orphanId = orphan.runId;
      await new KvRunStore(s.kv).save(orphan);
      await s.worker.stop(); // as on SIGTERM: the slow run stops with SHUTDOWN_REASON
      const stopped = (await s.call("GET", `/runs/${slowId}`)).body;
      assert.deepEqual(stopped.interruption, { type: "cancelled", reason: SHUTDOWN_REASON });
    });
    await withServer({ kvPath, scan: { ms: 50 } }, async (s) => {
      const stopped = (await s.call("GET", `/runs/${slowId}`)).body;
      assert.ok(stopped.status === "running" || stopped.interruption?.reason === SHUTDOWN_REASON);
      await s.worker.recovered;
      assert.equal((await settled(s, slowId)).status, "completed");
      assert.equal((await settled(s, orphanId)).output, "hi there");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startWorker can be stopped before anything happens", async () => {
  const kv = await Deno.openKv(":memory:");
  const worker = startWorker({ kv, store: new KvRunStore(kv) });
  await worker.recovered;
  await worker.stop();
  kv.close();
  await worker.listening;
  assert.equal(worker.executor.executing, 0);
});
