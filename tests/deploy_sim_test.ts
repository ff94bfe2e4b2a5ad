// Deno Deploy, simulated: instances of demo/main.ts under Deno 2.5.0 (the Deploy
// runtime) with DENO_DEPLOYMENT_ID set, no flags beyond deno.json's, one shared KV
// file, and the KV queue API throwing (tests/fixtures/deploy_entry.ts). A run whose
// tool takes seconds starts on instance A; A is evicted mid-tool (SIGINT, SIGKILL 5 s
// later if still alive; then SIGKILL with no notice); the run must complete through
// instance B at the cost of a run never interrupted, with no turn twice in its trace.
// Prints: SIGINT -> lease released, -> B resumes (with and without a request arriving
// at B), cold start of demo/main.ts and its RSS at rest.
import assert from "node:assert/strict";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { sleep } from "../harness/sleep.ts";
import {
  call,
  deno25,
  type Instance,
  LEASE_MS,
  rssKb,
  startInstance,
  stopInstances,
  SWEEP_MS,
  until,
} from "./deploy_sim_helpers.ts";

/** Timings of one eviction, in ms from the signal. */
interface Eviction {
  releasedMs: number;
  resumedMs: number;
  doneMs: number;
  cost: number;
}

Deno.test("Deno Deploy simulated: an evicted or killed instance's run completes on another, once", async () => {
  const bin = await deno25();
  const dir = await Deno.makeTempDir({ prefix: "reins-deploy-sim-" });
  const kv = await Deno.openKv(`${dir}/runs.sqlite`);
  const store = () => new KvRunStore(kv); // fresh per read: another process writes
  const instances: Instance[] = [];
  const start = async (name: string, sweepMs?: number) => {
    const i = await startInstance(bin, name, dir, sweepMs);
    instances.push(i);
    return i;
  };

  /** Starts a slow run on `a`, evicts `a` mid-tool, checks `b` completes it. */
  const evict = async (
    a: Instance,
    how: "SIGINT" | "SIGKILL",
    b: Instance,
    requests: boolean,
  ): Promise<Eviction> => {
    const created = await call(a, "POST", "/runs", { task: "scan", scenario: "slow" });
    assert.equal(created.status, 201);
    const id: string = created.body.runId;
    await until(
      "scan_archive under way on A",
      performance.now(),
      async () =>
        (await store().leaseHolder(id))?.owner === a.owner &&
        (await store().events(id)).some((e) => e.event.type === "tool_progress"),
    );
    const t0 = performance.now();
    a.child.kill(how);
    // As Deploy does: SIGKILL 5 s after the SIGINT if the instance is still alive.
    let killedAfterNotice = false;
    const notice = new AbortController();
    const watchdog = Promise.race([
      a.exited.then(() => true),
      sleep(5000, notice.signal).then(() => false, () => true),
    ]).then((exited) => {
      if (exited) return;
      killedAfterNotice = true;
      a.child.kill("SIGKILL");
    });
    const releasedMs = await until(
      "A's lease to go",
      t0,
      async () => (await store().leaseHolder(id))?.owner !== a.owner,
      LEASE_MS + 10_000,
    );
    const resumedMs = await until("the other instance to resume the run", t0, async () => {
      // A client polling: each request triggers a cheap sweep (at most one per 2 s).
      if (requests) await call(b, "GET", "/runs?limit=1");
      return (await store().leaseHolder(id))?.owner === b.owner;
    });
    const status = await a.exited;
    notice.abort();
    await watchdog;
    const doneMs = await until(
      "the run to complete",
      t0,
      async () => (await store().load(id)).status !== "running",
      30_000,
    );
    const run = await store().load(id);
    assert.equal(run.status, "completed", `${how}: ${run.stopReason}\n${a.log()}`);
    const turns = (await store().events(id)).flatMap((e) =>
      e.event.type === "turn" ? [e.event.turn] : []
    );
    assert.deepEqual(turns, [1, 2], `${how}: a turn twice or missing in the trace`);
    // One run_stopped, the final one: a hand-over is its own event, by the evicted instance.
    const trace = (await store().events(id)).map((e) => e.event);
    const stops = trace.filter((e) => e.type === "run_stopped");
    assert.deepEqual(stops.map((e) => e.status), ["completed"], `${how}: run_stopped events`);
    assert.equal(trace.at(-1)?.type, "run_stopped");
    const handOvers = trace.flatMap((e) => e.type === "run_handed_over" ? [e.by] : []);
    assert.deepEqual(handOvers, how === "SIGINT" ? [a.owner] : [], `${how}: run_handed_over`);
    if (how === "SIGINT") {
      assert.equal(killedAfterNotice, false, `A did not stop within 5 s of SIGINT:\n${a.log()}`);
      assert.equal(status.code, 0, a.log());
      assert.match(a.log(), /SIGINT: handing over 1 run/);
    }
    return { releasedMs, resumedMs, doneMs, cost: run.costUsd };
  };

  try {
    const [b, a1] = await Promise.all([start("B"), start("A1")]);
    await sleep(1000);
    const rest = `RSS at rest: B ${rssKb(b.child.pid)} kB, A1 ${rssKb(a1.child.pid)} kB`;
    const reference = (await call(b, "POST", "/runs", { task: "scan", scenario: "slow" })).body;

    const r1 = await evict(a1, "SIGINT", b, false); // B's local sweep timer finds it
    const a3 = await start("A3");
    const r3 = await evict(a3, "SIGKILL", b, false); // no notice: the lease lapses
    // With requests and no timer: B leaves; C sweeps only when a request arrives.
    b.child.kill("SIGINT");
    assert.equal((await b.exited).code, 0, b.log());
    const c = await start("C", 0);
    await sleep(2100); // past the request-sweep gap of C's start-up sweep
    const a2 = await start("A2");
    const r2 = await evict(a2, "SIGINT", c, true);

    const ref = await store().load(reference.runId);
    assert.equal(ref.status, "completed");
    for (const r of [r1, r2, r3]) assert.equal(r.cost, ref.costUsd, "billed again");
    const ms = (n: number) => `${n.toFixed(0)} ms`;
    const cold = instances.map((i) => `${i.name} ${ms(i.coldStartMs)}`).join(", ");
    console.log([
      `cold start (process start -> first answer, Deno 2.5.0): ${cold}; ${rest}`,
      `SIGINT, no request (B's local sweep every ${SWEEP_MS} ms): lease released ` +
      `${ms(r1.releasedMs)}, B resumes ${ms(r1.resumedMs)}, completed ${ms(r1.doneMs)}`,
      `SIGINT, requests at C (no timer): lease released ${ms(r2.releasedMs)}, ` +
      `C resumes ${ms(r2.resumedMs)}, completed ${ms(r2.doneMs)}`,
      `SIGKILL, no notice: lease lapsed ${ms(r3.releasedMs)} (lease ${LEASE_MS} ms), ` +
      `B resumes ${ms(r3.resumedMs)}, completed ${ms(r3.doneMs)}`,
      `cost: ${r1.cost}, ${r2.cost}, ${r3.cost} USD; never interrupted: ${ref.costUsd}`,
    ].join("\n"));
  } finally {
    await stopInstances(instances);
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
