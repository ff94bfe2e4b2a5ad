import assert from "node:assert/strict";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { runScript } from "../run_script.ts";

const cli = (args: string[]) => runScript("demo/cli.ts", args);

async function storedRuns(path: string) {
  const kv = await Deno.openKv(path);
  try {
    return await new KvRunStore(kv).list();
  } finally {
    kv.close();
  }
}

Deno.test("a run the CLI cannot start is never left running in KV (no ghost runs)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-ghost-" });
  try {
    const kvPath = `${dir}/runs.sqlite`;
    const bad: [string, string[]][] = [
      ["unknown scenario", ["--model", "no-such-scenario", "go"]],
      ["missing workspace", ["--workspace", `${dir}/missing`, "go"]],
      ["base url without model", ["--base-url", "http://127.0.0.1:9/v1", "go"]],
    ];
    for (const [what, args] of bad) {
      const r = await cli(["--kv", kvPath, ...args]);
      assert.notEqual(r.code, 0, `${what}: should fail`);
      const runs = await storedRuns(kvPath);
      const ghosts = runs.filter((s) => s.status === "running");
      assert.deepEqual(ghosts.map((g) => g.runId), [], `${what}: a ghost run was left running`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a continuation the CLI cannot start does not mark the run running", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-ghost-" });
  try {
    const kvPath = `${dir}/runs.sqlite`;
    const first = await cli([
      "--kv",
      kvPath,
      "--workspace",
      dir,
      "--scenario",
      "runaway",
      "--max-turns",
      "1",
    ]);
    assert.equal(first.code, 3, first.stderr); // max_turns_exceeded's exit code
    const [run] = await storedRuns(kvPath);
    assert.equal(run.status, "max_turns_exceeded");
    const r = await cli([
      "--kv",
      kvPath,
      "--workspace",
      dir,
      "--resume",
      run.runId,
      "--max-turns",
      "3",
      "--model",
      "no-such-scenario",
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /unknown scenario "no-such-scenario"/);
    const [after] = await storedRuns(kvPath);
    assert.equal(after.status, "max_turns_exceeded", "the run is as it was");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
