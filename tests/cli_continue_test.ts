// `deno task run --continue ID "message"`: a follow-up from the command line, answered
// in the same run, in a real process over a KV file.
import assert from "node:assert/strict";
import { parseRunArgs, UsageError } from "../cli/args.ts";
import { lastJson, runScript } from "./run_script.ts";

const cli = (args: string[], cwd?: string) =>
  runScript("demo/cli.ts", args, { cwd, env: { REINS_SCRIPTED_CHUNK_MS: "0" } });

Deno.test("parseRunArgs: --continue ID MESSAGE", () => {
  assert.deepEqual(parseRunArgs(["--continue", "r1", "and", "then?"]).command, {
    kind: "continue",
    runId: "r1",
    message: "and then?",
  });
  assert.throws(() => parseRunArgs(["--continue", "r1"]), UsageError);
  assert.throws(() => parseRunArgs(["--continue", "r1", "--resume", "r2"]), UsageError);
  assert.equal(parseRunArgs(["--continue", "r1", "x", "--wait", "3"]).waitSeconds, 3);
});

Deno.test("--continue answers a follow-up in the same run; the cost adds up", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-continue-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const first = await cli(["--scenario", "plan", "--json", ...kv], dir);
    assert.equal(first.code, 0, first.stderr);
    const before = lastJson(first.stdout);
    const next = await cli(["--continue", before.runId, "Which worker?", ...kv], dir);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /you> Which worker\?/);
    assert.match(next.stdout, new RegExp(`run ${before.runId}: completed`));
    const again = await cli(["--continue", before.runId, "And?", "--json", ...kv], dir);
    const after = lastJson(again.stdout);
    assert.equal(after.runId, before.runId);
    assert.equal(after.turns, 5);
    assert.ok(after.costUsd > before.costUsd);
    const child = await cli(["--continue", `${before.runId}.x`, "hi", ...kv], dir);
    assert.equal(child.code, 2);
    assert.match(child.stderr, /^error: Run ".+" not found/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
