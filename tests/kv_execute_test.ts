// executeRun, leases, the KV trace and file persistence, over a real Deno KV.
import assert from "node:assert/strict";
import { z } from "zod";
import { newRun } from "../harness/state.ts";
import { defineTool } from "../harness/tool.ts";
import { callTool, say, scriptedModel } from "../testing/mod.ts";
import { run } from "../harness/run.ts";
import { memorySink } from "../harness/trace.ts";
import { RunConflictError } from "../harness/errors.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun, startRun } from "../runtime/execute_run.ts";
import { openKv } from "../kv/open_kv.ts";
import { countingKv, listFiles, oneCallModel, runawayModel, sleep, withKv } from "./kv_helpers.ts";
import { acquireLease, leaseHolder, renewLeases } from "../kv/leases.ts";
import { keepLease } from "../kv/lease_keeper.ts";
import { leaseKey } from "../kv/keys.ts";

Deno.test("concurrent executeRun of one run from two stores: one proceeds, one conflicts", () =>
  withKv(async (kv) => {
    const s = newRun("list");
    await new KvRunStore(kv).save(s);
    const [a, b] = [new KvRunStore(kv, { owner: "a" }), new KvRunStore(kv, { owner: "b" })];
    const options = { model: oneCallModel("list_files", 60), tools: [listFiles] };
    const results = await Promise.allSettled([
      executeRun(a, s.runId, options),
      executeRun(b, s.runId, options),
    ]);
    const done = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected");
    assert.equal(done.length, 1);
    assert.equal(refused.length, 1);
    const reason = (refused[0] as PromiseRejectedResult).reason;
    assert.ok(reason instanceof RunConflictError, String(reason));
    assert.match(reason.message, /being executed by (a|b)/);
    assert.equal((await new KvRunStore(kv).load(s.runId)).status, "completed");
    assert.equal(await new KvRunStore(kv).leaseHolder(s.runId), null, "lease released");
  }));

Deno.test("the lease is renewed while a run goes on longer than its ttl", () =>
  withKv(async (kv) => {
    const a = new KvRunStore(kv, { owner: "a", leaseMs: 120 });
    const b = new KvRunStore(kv, { owner: "b", leaseMs: 120 });
    const s = newRun("slow");
    await a.save(s);
    const running = executeRun(a, s, {
      model: oneCallModel("list_files", 200),
      tools: [listFiles],
    });
    try {
      await sleep(300); // > 2 ttl: only renewals keep the lease alive
      await assert.rejects(executeRun(b, s.runId, { model: runawayModel() }), RunConflictError);
    } finally {
      assert.equal((await running).status, "completed");
    }
  }));

Deno.test("the same owner cannot execute one run twice at once in a process", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("twice");
    await store.save(s);
    const options = { model: oneCallModel("list_files", 30), tools: [listFiles] };
    const first = executeRun(store, s.runId, options);
    await assert.rejects(executeRun(store, s.runId, options), RunConflictError);
    assert.equal((await first).status, "completed");
  }));

Deno.test("a lease held by an expired owner can be taken over", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    assert.equal(await store.acquireLease("r1", "a", 40), true);
    assert.equal(await store.acquireLease("r1", "b", 40), false);
    assert.equal((await store.leaseHolder("r1"))?.owner, "a");
    await sleep(60);
    assert.equal(await store.leaseHolder("r1"), null);
    assert.equal(await store.acquireLease("r1", "b", 1000), true);
    assert.equal(await store.renewLease("r1", "a"), false);
    assert.equal(await store.releaseLease("r1", "a"), false);
    assert.equal((await store.leaseHolder("r1"))?.owner, "b");
    assert.equal(await store.releaseLease("r1", "b"), true);
    assert.equal(await store.leaseHolder("r1"), null);
  }));

Deno.test("trace events stored under the run read back in emission order", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const seen = memorySink();
    const done = await startRun(store, newRun("list"), {
      model: runawayModel(),
      tools: [listFiles],
      trace: seen.sink,
      limits: { maxTurns: 3 },
    });
    const stored = await store.events(done.runId);
    assert.deepEqual(stored.map((e) => e.seq), stored.map((_, i) => i));
    assert.deepEqual(stored.map((e) => e.event), seen.events);
    assert.equal(stored.at(-1)?.event.type, "run_stopped");
    assert.deepEqual(await store.events(done.runId, { afterSeq: 2 }), stored.slice(3));
    // A later execution (another store instance) appends after, not over.
    await executeRun(new KvRunStore(kv), done.runId, {
      model: runawayModel(),
      tools: [listFiles],
      limits: { maxTurns: 4 },
    });
    const all = await store.events(done.runId);
    assert.deepEqual(all.slice(0, stored.length), stored);
    assert.ok(all.length > stored.length);
    assert.deepEqual(all.map((e) => e.seq), all.map((_, i) => i));
  }));

Deno.test("events too large for one KV value are shortened, not lost", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const args = JSON.stringify({ text: "w".repeat(200_000) });
    await store.traceSink()({
      type: "tool_start",
      runId: "r1",
      at: new Date().toISOString(),
      toolName: "write",
      callId: "c1",
      args,
    });
    const [e] = await store.events("r1");
    assert.equal(e.event.type, "tool_start");
    assert.ok(e.event.type === "tool_start" && e.event.args.includes("characters cut"));
  }));

Deno.test("a call needing approval with 70 KB of arguments interrupts the run, stored with its trace", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const path = "x".repeat(70_000);
    const remove = defineTool({
      name: "delete_file",
      description: "Delete a file.",
      parameters: z.object({ path: z.string() }),
      needsApproval: true,
      run: () => "deleted",
    });
    const model = scriptedModel("big", {
      scenarios: {
        big: ({ turn }) => turn === 0 ? callTool(0, "delete_file", { path }) : say("ok"),
      },
    });
    const state = newRun("clean up");
    await store.save(state);
    // Before: the exit's save threw "Value too large" (run_stopped carries the
    // arguments inside its interruption), and the run stayed running.
    const done = await run(state, { model, tools: [remove], store, trace: store.traceSink() });
    assert.equal(done.status, "interrupted");
    const back = await store.load(state.runId);
    assert.ok(back.interruption?.type === "approval");
    assert.deepEqual(back.interruption.args, { path });
    const stopped = (await store.events(state.runId)).at(-1)!.event;
    assert.ok(stopped.type === "run_stopped" && stopped.interruption?.type === "approval");
    assert.match(JSON.stringify(stopped.interruption.args), /characters cut/);
  }));

Deno.test("a run persists in a KV file across close and reopen", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/runs.sqlite`;
    let kv = await openKv(path);
    const done = await run(newRun("list"), {
      model: runawayModel(),
      tools: [listFiles],
      store: new KvRunStore(kv),
      limits: { maxTurns: 2 },
    });
    kv.close();
    kv = await openKv(path);
    try {
      assert.deepEqual(await new KvRunStore(kv).load(done.runId), done);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("renewLeases: 120 leases in 3 commits; one taken over is reported lost, the rest kept", async () => {
  await using raw = await Deno.openKv(":memory:");
  const { kv, commits } = countingKv(raw);
  const ids = Array.from({ length: 120 }, (_, i) => `run${i}`);
  for (const id of ids) await acquireLease(kv, id, "w1", 60_000);
  // Another owner took run7 over after its lease ran out.
  await raw.delete(leaseKey("run7"));
  await acquireLease(kv, "run7", "w2", 60_000);
  const before = commits.n;
  const held = await renewLeases(kv, ids, "w1", 60_000);
  assert.equal(commits.n - before, 3);
  assert.deepEqual(ids.filter((id) => !held.get(id)), ["run7"]);
  assert.equal((await leaseHolder(kv, "run7"))?.owner, "w2");
});

Deno.test("keepLease: one timer renews every run's lease past its time; a lost one is reported once", async () => {
  await using kv = await Deno.openKv(":memory:");
  for (const id of ["a", "b"]) await acquireLease(kv, id, "w1", 90);
  const lost: string[] = [];
  const stopA = keepLease(kv, "a", "w1", 90, {}, () => lost.push("a"));
  const stopB = keepLease(kv, "b", "w1", 90, {}, () => lost.push("b"));
  await sleep(200); // over twice the lease time
  for (const id of ["a", "b"]) {
    const lease = await leaseHolder(kv, id);
    assert.equal(lease?.owner, "w1");
    assert.ok(lease.expiresAt > Date.now(), `${id}'s lease was not renewed`);
  }
  await kv.delete(leaseKey("b"));
  await acquireLease(kv, "b", "w2", 60_000);
  await sleep(100);
  assert.deepEqual(lost, ["b"]);
  await stopA();
  await stopB();
});
