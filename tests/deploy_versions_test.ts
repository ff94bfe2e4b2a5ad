// Deno Deploy simulated across Deno versions: one KV file shared by an instance
// under this Deno (2.9.x, what the README recommends for the CLI and workers) and
// one under Deno 2.5.0 (the Deploy runtime). A run written by one, its instance
// killed mid-tool, is executed to the end by the other, both ways.
import assert from "node:assert/strict";
import { KvRunStore } from "../kv/kv_run_store.ts";
import {
  call,
  deno25,
  type Instance,
  LEASE_MS,
  startInstance,
  stopInstances,
  until,
} from "./deploy_sim_helpers.ts";

const pairs = [["new", "2.5.0"], ["2.5.0", "new"]] as const;

for (const [writer, executor] of pairs) {
  Deno.test(`Deploy simulated: a run written by Deno ${writer} is executed by Deno ${executor}`, async () => {
    const old = await deno25();
    const bin = (v: string) => v === "2.5.0" ? old : Deno.execPath();
    const dir = await Deno.makeTempDir({ prefix: "reins-deploy-versions-" });
    const kv = await Deno.openKv(`${dir}/runs.sqlite`);
    const store = () => new KvRunStore(kv); // fresh per read: other processes write
    const instances: Instance[] = [];
    try {
      const a = await startInstance(bin(writer), "A", dir);
      instances.push(a);
      const created = await call(a, "POST", "/runs", { task: "scan", scenario: "slow" });
      assert.equal(created.status, 201);
      const id: string = created.body.runId;
      const t0 = performance.now();
      await until(
        "scan_archive under way on A",
        t0,
        async () =>
          (await store().leaseHolder(id))?.owner === a.owner &&
          (await store().events(id)).some((e) => e.event.type === "tool_progress"),
      );
      a.child.kill("SIGKILL"); // no notice: the lease lapses
      await a.exited;
      // B starts once A is gone (no sweep timer: a request makes it sweep), so it
      // cannot take the run before A leased it, nor miss it while A still runs.
      const b = await startInstance(bin(executor), "B", dir, 0);
      instances.push(b);
      await until(
        "B to resume the run",
        t0,
        async () => {
          await call(b, "GET", "/runs?limit=1"); // a request makes B sweep
          return (await store().leaseHolder(id))?.owner === b.owner;
        },
        LEASE_MS + 15_000,
      ).catch((e) => {
        throw new Error(`${e.message}\nB's log:\n${b.log()}`);
      });
      await until(
        "the run to complete",
        t0,
        async () => (await store().load(id)).status !== "running",
        30_000,
      );
      const run = await store().load(id);
      assert.equal(run.status, "completed", `${run.stopReason}\n${b.log()}`);
      const turns = (await store().events(id)).flatMap((e) =>
        e.event.type === "turn" ? [e.event.turn] : []
      );
      assert.deepEqual(turns, [1, 2]);
      // B serves the whole record over its API, as written by both versions.
      const got = await call(b, "GET", `/runs/${id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.status, "completed");
      const listed = await call(b, "GET", "/runs?limit=5");
      assert.ok(listed.body.runs.some((r: { runId: string }) => r.runId === id));
      assert.doesNotMatch(b.log(), /could not deserialize/);
    } finally {
      await stopInstances(instances);
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("an app on reins's server and testing entries type-checks under Deno 2.5.0", async () => {
  // Deploy runs 2.5, and a user's `deno check` there read reins's sources (the types of
  // dist/ via @ts-self-types) against 2.5's lib: app.ts once failed it (RequestInit).
  // No lock: 2.5 resolves npm peers differently and would rewrite the example's.
  const cert = Deno.env.get("NODE_EXTRA_CA_CERTS");
  const out = await new Deno.Command(await deno25(), {
    cwd: new URL("../examples/support_desk/", import.meta.url),
    args: ["check", "--no-lock", "main.ts", "tests/"],
    env: cert ? { DENO_CERT: cert } : {},
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err.split("\n").filter((l) => !/^\s+\d+: |^\s+at /.test(l)).join("\n"));
});
