// `deno task worker` for real: a process with no HTTP executes the runs it finds
// in a KV file, and on SIGINT hands the one it is executing over (stored
// `running`, no lease) and exits 0.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { waitFor } from "./server_http.ts";
import { ROOT, spawnScript } from "./run_script.ts";

Deno.test("deno task worker executes runs from a KV file and hands its run over on SIGINT", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-worker-" });
  const kvPath = `${dir}/runs.sqlite`;
  const kv = await Deno.openKv(kvPath);
  const store = new KvRunStore(kv);
  const quick = newRun("done by the worker", { model: "echo" });
  const slow = newRun("scan", { model: "slow" });
  await store.save(quick);
  await store.save(slow);
  const child = spawnScript("demo/worker.ts", ["--kv", kvPath, "--sweep-ms", "200"], {
    cwd: ROOT,
    env: { REINS_WORKSPACES: `${dir}/ws`, REINS_SCAN_MS: "20000", REINS_SCRIPTED: "1" },
    flags: ["-A"],
  });
  try {
    const fresh = () => new KvRunStore(kv);
    await waitFor(
      async () => {
        const s = await fresh().load(quick.runId);
        return s.status === "completed" ? s : undefined;
      },
      "the echo run to complete",
      20_000,
    );
    await waitFor(
      async () =>
        (await fresh().events(slow.runId)).some((e) => e.event.type === "tool_progress") ||
        undefined,
      "the scan to start",
      20_000,
    );
    assert.ok(await fresh().leaseHolder(slow.runId));
    child.kill("SIGINT");
    const { code, stdout } = await child.output();
    const text = new TextDecoder().decode(stdout);
    assert.equal(code, 0, text);
    assert.match(
      text,
      /^reins worker: executing runs of demo, demo-deep, demo-cleanup, demo-typed from .*runs\.sqlite/,
    );
    assert.match(text, /SIGINT: handed over 1 run\(s\)/);
    const after = await fresh().load(slow.runId);
    assert.equal(after.status, "running");
    assert.equal(await fresh().leaseHolder(slow.runId), null);
    assert.equal((await fresh().load(quick.runId)).output, "done by the worker");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // already exited
    }
    await child.status;
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task worker with a KV it cannot open says so in one line and exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-worker-" });
  const file = `${dir}/not-a-folder`;
  await Deno.writeTextFile(file, "");
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.join(" "));
  try {
    const { runWorker } = await import("../demo/worker.ts");
    const { demoWorkerOptions } = await import("../demo/process.ts");
    assert.equal(await runWorker(["--kv", `${file}/sub/runs.sqlite`], demoWorkerOptions()), 1);
  } finally {
    console.error = original;
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(errors.length, 1, errors.join("\n"));
  assert.match(errors[0], /^reins worker: Cannot open KV database ".*runs\.sqlite"/);
  assert.ok(!errors[0].includes("\n"), errors[0]);
});

Deno.test("deno task worker with an MCP server in reins.jsonc that cannot start says so in one line and exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-worker-" });
  const config = `${dir}/reins.jsonc`;
  await Deno.writeTextFile(
    config,
    '{ "mcpServers": { "broken": { "command": "/no/such/binary" } } }',
  );
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.join(" "));
  const before = Deno.env.get("REINS_CONFIG");
  Deno.env.set("REINS_CONFIG", config);
  try {
    const { runWorker } = await import("../demo/worker.ts");
    const { demoWorkerOptions } = await import("../demo/process.ts");
    assert.equal(await runWorker(["--kv", ":memory:"], demoWorkerOptions()), 1);
  } finally {
    console.error = original;
    if (before === undefined) Deno.env.delete("REINS_CONFIG");
    else Deno.env.set("REINS_CONFIG", before);
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(errors.length, 1, errors.join("\n"));
  assert.match(errors[0], /^reins worker: Cannot connect to MCP server "broken": /);
  assert.ok(!errors[0].includes("\n"), errors[0]);
});
