import assert from "node:assert/strict";
import { parseRunArgs, UsageError } from "../cli/args.ts";
import { lastJson, readUntil, runScript, spawnScript } from "./run_script.ts";

const cli = (script: string, args: string[]) => runScript(script, args);
/** How long the demo's `scan_archive` takes in the --stop test (`REINS_SCAN_MS`). */
const SCAN_MS = 120_000;

Deno.test("parseRunArgs: a wrong flag or value is a one-line UsageError", () => {
  for (
    const argv of [
      ["--max-turns", "x", "t"],
      ["--budget", "-1", "t"],
      ["--budget-mode", "medium", "t"],
      ["--tool-errors", "loud", "t"],
      ["--bogus"],
      ["--approve", "r1"],
      ["--resume", "r1", "--approve", "r1", "c1"],
      ["--reason", "x", "t"],
    ]
  ) {
    assert.throws(
      () => parseRunArgs(argv),
      (e: Error) => e instanceof UsageError && !e.message.includes("\n"),
      argv.join(" "),
    );
  }
  const f = parseRunArgs([
    "--scenario",
    "runaway",
    "--max-turns",
    "50",
    "--budget",
    "0.05",
    "--budget-mode",
    "hard",
    "--json",
    "go",
  ]);
  assert.deepEqual([f.maxTurns, f.budget, f.budgetMode, f.json, f.command.kind], [
    50,
    0.05,
    "hard",
    true,
    "new",
  ]);
  assert.equal(parseRunArgs([]).command.kind, "demo");
});

Deno.test("deno task run persists a run in KV; approve/reject continue it from another process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`, "--workspace", dir];
    await Deno.mkdir(`${dir}`, { recursive: true });
    for (
      const [name, text] of [["access.log", "x"], ["errors.log", "worker 7 timed out"], [
        "notes.txt",
        "n",
      ]]
    ) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const first = await cli("demo/cli.ts", [
      "--scenario",
      "destructive",
      "--json",
      ...kv,
      "free space",
    ]);
    assert.equal(first.code, 5, first.stderr); // awaits a verdict
    const s = lastJson(first.stdout);
    assert.equal(s.status, "interrupted");
    assert.equal(s.interruption.toolName, "delete_file");

    const bad = await cli("demo/cli.ts", ["--approve", s.runId, "nope", ...kv]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr.trim(), /^error: Cannot approve call "nope" of run/);

    const approved = await cli("demo/cli.ts", [
      "--approve",
      s.runId,
      s.interruption.callId,
      "--json",
      ...kv,
    ]);
    assert.equal(approved.code, 0, approved.stderr);
    const done = lastJson(approved.stdout);
    assert.equal(done.status, "completed");
    assert.equal(done.turns, 3);
    assert.equal(done.output, "Deleted access.log to free space.");

    const again = await cli("demo/cli.ts", ["--resume", s.runId, ...kv]);
    assert.equal(again.code, 2);
    assert.equal(again.stderr.trim(), `error: Cannot resume run "${s.runId}": status is completed`);

    const list = await cli("cli/runs.ts", ["--json", "--kv", `${dir}/runs.sqlite`]);
    const runs = JSON.parse(list.stdout);
    assert.equal(runs.length, 1);
    assert.equal(runs[0].runId, s.runId);
    const trace = await cli("cli/runs.ts", ["trace", s.runId, "--kv", `${dir}/runs.sqlite`]);
    const events = trace.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(events.every((e) => e.runId === s.runId));
    assert.deepEqual(events.filter((e) => e.type === "run_stopped").map((e) => e.status), [
      "interrupted",
      "completed",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task run --stop stops a run executing in another process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-stop-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    // A scan far longer than a loaded machine takes to start the --stop process (the default
    // 3 s could end first): the Stop must land mid-scan, once the scan has observably started.
    const runner = spawnScript("demo/cli.ts", ["--scenario", "slow", ...kv, "scan the archive"], {
      env: { REINS_SCAN_MS: String(SCAN_MS) },
      timeoutMs: SCAN_MS / 2, // a Stop that never lands fails the test rather than hanging it
    });
    const reader = runner.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = await readUntil(reader, /^ {2}tool scan_archive\(/m);
    const runId = out.match(/^run (\S+)$/m)?.[1];
    assert.ok(runId, out);
    const stop = await cli("demo/cli.ts", ["--stop", runId, "--reason", "enough", ...kv]);
    assert.equal(stop.code, 0, stop.stderr);
    out = await readUntil(reader, undefined, out);
    const status = await runner.status;
    await runner.stderr.cancel();
    assert.equal(status.code, 6); // interrupted/cancelled
    assert.match(out, new RegExp(`run ${runId}: interrupted \\(cancelled: enough\\)`));
    assert.doesNotMatch(out, /scanned 1200 of 1200|tool scan_archive ok/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
