// One Stop watcher per KV handle for every tree executing here: a Stop
// reaches its own tree's watchers only, at once in this process, through the
// poll from another process's handle on the same file, and (later, through
// the sweep) when written without the epoch by an older reins.
import assert from "node:assert/strict";
import { join } from "node:path";
import { onTreeStop, SWEEP_POLLS } from "../runtime/stop_watcher.ts";
import { readStop, writeStop } from "../kv/stop_record.ts";
import { requestStop, watchStop } from "../runtime/stop_tree.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { newRun } from "../harness/state.ts";
import { sleep } from "../harness/sleep.ts";
import { stopKey } from "../kv/keys.ts";
import { encodeValue } from "../kv/value_codec.ts";

function watch(kv: Deno.Kv, roots: string[], pollMs: number) {
  const seen = new Map<string, string[]>();
  const disposers = roots.map((r) =>
    onTreeStop(kv, r, pollMs, (req) => seen.set(r, [...seen.get(r) ?? [], req.reason]))
  );
  return { seen, dispose: () => Promise.all(disposers.map((d) => d())) };
}

async function until(what: string, ok: () => boolean, ms = 3000): Promise<number> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}

Deno.test("a Stop reaches the watchers of its tree only, at once, among 50 trees", async () => {
  await using kv = await Deno.openKv(":memory:");
  const roots = Array.from({ length: 50 }, (_, i) => `root${i}`);
  const { seen, dispose } = watch(kv, roots, 10_000); // the poll plays no part
  await writeStop(kv, { rootId: "root7", reason: "enough", at: Date.now() });
  const ms = await until("root7's Stop", () => seen.has("root7"));
  assert.ok(ms < 1000, `took ${ms} ms`);
  await writeStop(kv, { rootId: "root42", reason: "also", at: Date.now() });
  await until("root42's Stop", () => seen.has("root42"));
  await dispose();
  assert.deepEqual([...seen.keys()].sort(), ["root42", "root7"]);
  assert.deepEqual(seen.get("root42"), ["also"]);
  // root42's Stop made every watched tree be read again: root7's Stop is not handed over twice.
  assert.deepEqual(seen.get("root7"), ["enough"]);
});

Deno.test("a Stop recorded before the watch fires at once", async () => {
  await using kv = await Deno.openKv(":memory:");
  await writeStop(kv, { rootId: "r1", reason: "earlier", at: 1 });
  const { seen, dispose } = watch(kv, ["r0", "r1"], 10_000);
  await until("the recorded Stop", () => seen.has("r1"));
  await dispose();
  assert.equal(seen.has("r0"), false);
});

Deno.test("another process's Stop on the same file is seen through the poll", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using here = await Deno.openKv(join(dir, "kv.sqlite"));
    await using other = await Deno.openKv(join(dir, "kv.sqlite"));
    const { seen, dispose } = watch(here, ["a", "b"], 20);
    await writeStop(other, { rootId: "b", reason: "from elsewhere", at: Date.now() });
    await until("the other handle's Stop", () => seen.has("b"));
    await dispose();
    assert.equal(seen.has("a"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Stop written without the epoch (an older reins) is seen by the sweep", async () => {
  await using kv = await Deno.openKv(":memory:");
  const { seen, dispose } = watch(kv, ["old"], 5);
  await new Promise((r) => setTimeout(r, 20));
  await kv.set(stopKey("old"), encodeValue({ rootId: "old", reason: "old writer", at: 1 }));
  const ms = await until("the sweep", () => seen.has("old"));
  await dispose();
  assert.ok(ms < 5 * SWEEP_POLLS * 20, `took ${ms} ms`);
});

Deno.test("the last disposer ends the watch; a new watch afterwards starts a new one", async () => {
  await using kv = await Deno.openKv(":memory:");
  await watch(kv, ["x", "y"], 5).dispose();
  const again = watch(kv, ["x"], 5);
  await writeStop(kv, { rootId: "x", reason: "again", at: 1 });
  await until("the new watcher", () => again.seen.has("x"));
  await again.dispose();
});

Deno.test("requestStop stops a tree executing here before its record is written", async () => {
  await using raw = await Deno.openKv(":memory:");
  const s = newRun("hi");
  await new KvRunStore(raw).save(s);
  // A KV whose commits wait 400 ms, as a busy server's queue does.
  const slowCommits = new Proxy(raw, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop !== "atomic") return typeof v === "function" ? v.bind(target) : v;
      return () => {
        const op = target.atomic();
        const view: Deno.AtomicOperation = new Proxy(op, {
          get(t, p) {
            const f = Reflect.get(t, p, t);
            if (typeof f !== "function") return f;
            return (...a: unknown[]) => {
              if (p === "commit") return sleep(400).then(() => f.apply(t, a));
              const r = f.apply(t, a);
              return r === t ? view : r;
            };
          },
        });
        return view;
      };
    },
  });
  const controller = new AbortController();
  const dispose = watchStop(slowCommits, s.rootId, controller, { pollMs: 10_000 });
  const t0 = performance.now();
  const requesting = requestStop(slowCommits, s.runId, "now");
  await new Promise((r) => setTimeout(r, 0));
  const ms = performance.now() - t0;
  assert.equal(controller.signal.reason, "now", `not stopped after ${ms.toFixed(0)} ms`);
  await requesting;
  await dispose();
  assert.equal((await readStop(raw, s.rootId))?.reason, "now");
});

Deno.test("concurrent Stops of one tree all report the reason the tree records: the first", async () => {
  await using kv = await Deno.openKv(":memory:");
  const root = newRun("hi");
  const child = newRun("sub", {
    parent: { runId: root.runId, rootId: root.rootId, callId: "call_1" },
  });
  const store = new KvRunStore(kv);
  await store.save(root);
  await store.save(child);
  const controller = new AbortController();
  const dispose = watchStop(kv, root.rootId, controller, { pollMs: 10_000 });
  // Three at once, one through the child (before: each answered its own reason, the
  // record kept the last written and the tree the first announced).
  const answers = await Promise.all([
    requestStop(kv, root.runId, "first"),
    requestStop(kv, root.runId, "second"),
    requestStop(kv, child.runId, "third"),
  ]);
  await dispose();
  const recorded = (await readStop(kv, root.rootId))?.reason;
  assert.equal(controller.signal.reason, "first");
  assert.equal(recorded, "first");
  assert.deepEqual(answers.map((a) => a.reason), ["first", "first", "first"]);
  // Later Stops report the one recorded, until it is lifted.
  assert.equal((await requestStop(kv, root.runId, "later")).reason, "first");
  // A record that is not a Stop is replaced, not looped on.
  await kv.set(stopKey("other"), encodeValue({ nonsense: true }));
  assert.equal((await writeStop(kv, { rootId: "other", reason: "real", at: 1 })).reason, "real");
});
