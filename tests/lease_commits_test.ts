// The lease rides in the run's own commits: a run a request creates is created
// with its executor's lease, and the exit's save gives the lease up. Real Deno
// KV, every commit recorded by a view of it.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { leaseKey, runKey, runSettingsKey } from "../kv/keys.ts";
import { acquireLease, leaseHolder, renewLease } from "../kv/leases.ts";
import { executeRun } from "../runtime/execute_run.ts";
import { resolveWorkerDeps, startWorker } from "../runtime/worker.ts";
import { createExecutor } from "../runtime/executor.ts";
import { createApp } from "../server/app.ts";
import { demoDeps } from "../demo/process.ts";
import { countingKv, listFiles, oneCallModel, runawayModel, sleep, withKv } from "./kv_helpers.ts";

/** What one commit wrote: `set <key>` / `delete <key>` / `check <key>`, keys as JSON. */
type Commit = string[];

/** A view of `kv` recording each atomic's mutations and checks; `before` runs before each commit. */
function recordingKv(kv: Deno.Kv, before?: (commit: Commit) => Promise<void>) {
  const commits: Commit[] = [];
  const reads: string[] = [];
  const view = new Proxy(kv, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      if (prop === "get") {
        return (key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) => {
          reads.push(JSON.stringify(key));
          return target.get(key, o);
        };
      }
      if (prop !== "atomic") return v.bind(target);
      return () => {
        const op = target.atomic();
        const seen: Commit = [];
        const wrapped: Deno.AtomicOperation = new Proxy(op, {
          get(t, p) {
            const f = Reflect.get(t, p, t);
            if (typeof f !== "function") return f;
            if (p === "commit") {
              return async () => {
                await before?.(seen);
                commits.push(seen);
                return await f.apply(t, []);
              };
            }
            return (...args: unknown[]) => {
              if (p === "set" || p === "delete") seen.push(`${p} ${JSON.stringify(args[0])}`);
              if (p === "check") {
                for (const c of args as Deno.AtomicCheck[]) {
                  seen.push(`check ${JSON.stringify(c.key)}`);
                }
              }
              const r = f.apply(t, args);
              return r === t ? wrapped : r;
            };
          },
        });
        return wrapped;
      };
    },
  });
  return { kv: view, commits, reads };
}

const touches = (c: Commit, key: Deno.KvKey, what = "") =>
  c.some((m) => m.startsWith(what) && m.endsWith(` ${JSON.stringify(key)}`));

/** A worker's deps over `kv`: the demo's agents played by the scripted model, a temp folder. */
async function scriptedDeps(kv: Deno.Kv, owner?: string) {
  const root = await Deno.makeTempDir({ prefix: "reins-lease-commits-" });
  const deps = {
    kv,
    store: new KvRunStore(kv, owner ? { owner } : {}),
    ...demoDeps({ scripted: true, chunkMs: 0 }),
    workspaceRoot: root,
    pollMs: 20,
  };
  return { root, deps };
}

Deno.test("a run created by a request: lease taken with its creation, given up with its exit, 7 commits in all", () =>
  withKv(async (raw) => {
    const { kv, commits, reads } = recordingKv(raw);
    const { root, deps } = await scriptedDeps(kv);
    const worker = startWorker(deps, { everyMs: 0 });
    try {
      await worker.recovered;
      const app = createApp({ ...deps, schedule: worker.schedule, start: worker.start });
      const before = commits.length;
      reads.length = 0;
      const res = await app.request("/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ scenario: "plan" }),
      });
      assert.equal(res.status, 201);
      const { runId } = await res.json();
      await worker.executor.idle();
      const mine = commits.slice(before);
      const lease = leaseKey(runId);
      // Created with its settings and its lease; the first call's marker; two turns of
      // reply + tool result; the answer with the exit, which gives the lease up.
      assert.equal(mine.length, 7, mine.map((c) => c.join(", ")).join("\n"));
      assert.ok(touches(mine[0], lease, "set") && touches(mine[0], ["run", runId], "set"));
      assert.ok(touches(mine[6], lease, "delete") && touches(mine[6], lease, "check"));
      assert.deepEqual(mine.slice(1, 6).filter((c) => touches(c, lease)), []);
      // Executed as created: its header and settings are not read back, its lease only
      // by the exit's save that gives it up.
      const read = (key: Deno.KvKey) => reads.filter((k) => k === JSON.stringify(key)).length;
      assert.equal(read(runKey(runId)), 0, reads.join(" "));
      assert.equal(read(runSettingsKey(runId)), 0, reads.join(" "));
      assert.equal(read(lease), 1, reads.join(" "));
      assert.equal(await leaseHolder(raw, runId), null);
      assert.equal((await new KvRunStore(raw).load(runId)).status, "completed");
    } finally {
      await worker.stop();
      await Deno.remove(root, { recursive: true });
    }
  }));

Deno.test("the exit save leaves a lease someone else took over; a cancelled run's lease goes after it", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv, { owner: "a" });
    const s = newRun("taken over");
    await store.save(s);
    // While the reply is awaited, the lease passes to "b" (as after a lapse).
    const model = oneCallModel("list_files");
    const done = await executeRun(store, s, {
      tools: [listFiles],
      model: {
        ...model,
        async complete(request, signal) {
          if (request.messages.some((m) => m.role === "tool")) {
            await kv.delete(leaseKey(s.runId));
            assert.ok(await acquireLease(kv, s.runId, "b", 60_000));
          }
          return await model.complete(request, signal);
        },
      },
    });
    assert.equal(done.status, "completed");
    assert.equal((await leaseHolder(kv, s.runId))?.owner, "b", "b's lease is left alone");

    // A Stop: the exit save keeps the lease (children, a hand-over may follow), then it goes.
    const t = newRun("stopped");
    await store.save(t);
    let heldAtExit: string | undefined;
    const stopped = await executeRun(store, t, {
      model: runawayModel(),
      tools: [listFiles],
      signal: AbortSignal.abort("enough"),
      settle: async (state) => {
        heldAtExit = (await leaseHolder(kv, t.runId))?.owner;
        return state;
      },
    });
    assert.equal(stopped.status, "interrupted");
    assert.equal(heldAtExit, "a", "still held after the exit save");
    assert.equal(await leaseHolder(kv, t.runId), null);
  }));

Deno.test("a renewal racing the exit save costs a retry, not the save", () =>
  withKv(async (raw) => {
    const s = newRun("raced");
    let attempts = 0;
    const { kv } = recordingKv(raw, async (commit) => {
      if (!touches(commit, leaseKey(s.runId), "delete")) return;
      // The first time, the lease keeper renews between the exit save's read and its commit.
      if (attempts++ === 0) assert.ok(await renewLease(raw, s.runId, "a", 60_000));
    });
    const store = new KvRunStore(kv, { owner: "a" });
    await store.save(s);
    const done = await executeRun(store, s, {
      model: oneCallModel("list_files"),
      tools: [listFiles],
    });
    assert.equal(done.status, "completed");
    assert.equal(attempts, 2, "the exit save was tried again");
    const stored = await new KvRunStore(raw).load(s.runId);
    assert.equal(stored.status, "completed");
    assert.deepEqual(stored.messages, done.messages);
    assert.equal(await leaseHolder(raw, s.runId), null);
    const events = await store.events(s.runId);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i));
    assert.equal(events.filter((e) => e.event.type === "run_stopped").length, 1);
  }));

Deno.test("acquireLease: its holder's lease is extended, another's refused", () =>
  withKv(async (raw) => {
    const { kv, commits } = countingKv(raw);
    assert.ok(await acquireLease(kv, "r1", "a", 1000));
    const taken = await leaseHolder(kv, "r1");
    const before = commits.n;
    await sleep(5);
    assert.ok(await acquireLease(kv, "r1", "a", 1000));
    assert.equal(commits.n, before + 1, "extended: written");
    assert.ok((await leaseHolder(kv, "r1"))!.expiresAt > taken!.expiresAt);
    assert.equal(await acquireLease(kv, "r1", "b", 1000), false);
    assert.equal(commits.n, before + 1);
  }));

Deno.test("executeRun with leased takes no lease and reads nothing back; without, it does", () =>
  withKv(async (raw) => {
    const cost: Record<string, { commits: number; reads: number }> = {};
    for (const leased of [true, false]) {
      const { kv: counted, commits } = countingKv(raw);
      let reads = 0;
      const kv = new Proxy(counted, {
        get: (t, p) =>
          p === "get"
            ? (...a: Parameters<Deno.Kv["get"]>) => (reads++, t.get(...a))
            : Reflect.get(t, p, t),
      });
      const store = new KvRunStore(kv, { owner: "a" });
      const s = newRun(`leased ${leased}`);
      await store.save(s, { lease: true });
      const [c0, r0] = [commits.n, reads];
      const done = await executeRun(store, s, {
        model: oneCallModel("list_files"),
        tools: [listFiles],
        leased,
      });
      assert.equal(done.status, "completed");
      assert.equal(await leaseHolder(raw, s.runId), null, "given up with the exit");
      cost[String(leased)] = { commits: commits.n - c0, reads: reads - r0 };
    }
    // Without `leased`: the lease is read and extended, and the header read back.
    assert.equal(cost.false.commits, cost.true.commits + 1, JSON.stringify(cost));
    assert.equal(cost.false.reads, cost.true.reads + 2, JSON.stringify(cost));
    await assert.rejects(
      () => executeRun(new KvRunStore(raw), "some-id", { model: oneCallModel("x"), leased: true }),
      TypeError,
    );
  }));

Deno.test("a created run the executor does not execute gives its lease up at once", () =>
  withKv(async (kv) => {
    const { root, deps } = await scriptedDeps(kv);
    const worker = startWorker(deps, { everyMs: 0 });
    try {
      await worker.recovered;
      // An agent this process does not serve: left running, for a process that does.
      const foreign = newRun("not ours", { model: "plan", agent: "elsewhere" });
      await worker.start(foreign, {});
      await worker.executor.idle();
      assert.equal((await deps.store.summary(foreign.runId)).status, "running");
      assert.equal(await leaseHolder(kv, foreign.runId), null);
      // A stopped worker saves a new run without a lease: a sweep elsewhere takes it.
      await worker.stop();
      const late = newRun("too late", { model: "plan", agent: "demo" });
      await worker.start(late, {});
      assert.equal((await deps.store.summary(late.runId)).status, "running");
      assert.equal(await leaseHolder(kv, late.runId), null);
    } finally {
      await worker.stop();
      await Deno.remove(root, { recursive: true });
    }
  }));

Deno.test("a run created with its lease by a process that died is executed once the lease lapses", () =>
  withKv(async (kv) => {
    const dead = new KvRunStore(kv, { owner: "dead", leaseMs: 300 });
    const s = newRun("orphan", { model: "plan", agent: "demo" });
    await dead.save(s, { lease: true });
    const { root, deps } = await scriptedDeps(kv, "alive");
    const worker = startWorker(deps, { everyMs: 0 });
    try {
      await worker.recovered;
      assert.deepEqual(await worker.sweep(), [], "its creator's lease is live");
      await sleep(350);
      assert.deepEqual(await worker.sweep(), [s.runId]);
      await worker.executor.idle();
      assert.equal((await new KvRunStore(kv).load(s.runId)).status, "completed");
      assert.equal(await leaseHolder(kv, s.runId), null);
    } finally {
      await worker.stop();
      await Deno.remove(root, { recursive: true });
    }
  }));

Deno.test("a created run whose execution fails before it starts gives its creator's lease up", () =>
  withKv(async (raw) => {
    // The first read of the run's Stop record fails (a KV error), as a reviewer made it:
    // before, the run stayed leased to an execution that had died, for a whole lease time.
    let failed = 0;
    const kv = new Proxy(raw, {
      get(target, prop) {
        if (prop === "get") {
          return (key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
            if (key[0] === "cancel" && failed++ === 0) {
              return Promise.reject(new Error("kv: the read failed"));
            }
            return target.get(key, options);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { root, deps } = await scriptedDeps(kv);
    const executor = createExecutor(resolveWorkerDeps(deps));
    const errors: unknown[] = [];
    const logged = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const s = newRun("fails to start", { model: "plan", agent: "demo" });
      await executor.start(s, {});
      await executor.idle();
      assert.equal(failed, 1, "the Stop record's read failed once");
      assert.equal(errors.length, 1, "the failed execution is logged");
      assert.equal(await leaseHolder(raw, s.runId), null, "no lease left held");
      assert.equal((await new KvRunStore(raw).summary(s.runId)).status, "running");
    } finally {
      console.error = logged;
      await executor.stop();
      await Deno.remove(root, { recursive: true });
    }
  }));
