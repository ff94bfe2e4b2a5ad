import assert from "node:assert/strict";
import { EXIT_CODES, exitCodeOf } from "../cli/exit_codes.ts";
import { runUsage } from "../cli/args.ts";
import { progressPrinter } from "../cli/summary.ts";
import { newRun } from "../harness/state.ts";
import { KvOpenError, openKv } from "../kv/open_kv.ts";
import { lastJson, runScript } from "./run_script.ts";

const cli = (args: string[], cwd: string, script = "demo/cli.ts") =>
  runScript(script, args, { cwd });

Deno.test("every exit has its own code, and --help lists each one", () => {
  const codes = Object.values(EXIT_CODES);
  assert.equal(new Set(codes).size, codes.length);
  for (const code of codes) assert.match(runUsage(), new RegExp(`^  ${code}  \\S`, "m"));
  const s = newRun("x");
  const of = (status: typeof s.status, interruption: typeof s.interruption = null) =>
    exitCodeOf({ status, interruption });
  assert.deepEqual(
    [
      of("completed"),
      of("failed"),
      of("max_turns_exceeded", { type: "max_turns" }),
      of("budget_exceeded", { type: "max_budget" }),
      of("interrupted", {
        type: "approval",
        callId: "c",
        toolName: "t",
        args: {},
        why: "needs_approval",
      }),
      of("interrupted", { type: "cancelled", reason: "r" }),
    ],
    [0, 1, 3, 4, 5, 6],
  );
});

Deno.test("a run stopped by its budget exits 4 (budget_exceeded)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-exit-" });
  try {
    const r = await cli(["--scenario", "runaway", "--budget", "0.003", "--json"], dir);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(lastJson(r.stdout).status, "budget_exceeded");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a KV path that cannot be created, a missing workspace and a negative number are one-line errors, exit 2, storing nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-exit-" });
  try {
    await Deno.writeTextFile(`${dir}/a-file`, "not a folder");
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const cases: [string[], RegExp][] = [
      [
        ["--kv", `${dir}/a-file/sub/runs.sqlite`, "--scenario", "echo"],
        /^error: Cannot open KV database ".*a-file\/sub\/runs\.sqlite": cannot create its folder/,
      ],
      [
        ["--workspace", `${dir}/no/such`, ...kv, "--scenario", "echo"],
        /^error: --workspace ".*no\/such": no such folder$/,
      ],
      [
        ["--max-turns", "-3", ...kv, "--scenario", "echo"],
        /^error: --max-turns: expected an integer of at least 1, got "-3"$/,
      ],
      [
        ["--budget", "-0.5", ...kv, "--scenario", "echo"],
        /^error: --budget: expected more than 0 USD, got "-0.5"$/,
      ],
      [
        ["--budget", "0", ...kv, "--scenario", "echo"],
        /^error: --budget: expected more than 0 USD, got "0"$/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args, dir);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr.trim(), message);
      assert.equal(r.stdout, "", args.join(" "));
    }
    const list = await cli(["--json", ...kv], dir, "cli/runs.ts");
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout), [], "no run was stored");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openKv creates the folder a fresh project needs; a folder it cannot create is a KvOpenError", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-openkv-" });
  try {
    const kv = await openKv(`${dir}/.reins/deeper/runs.sqlite`);
    await kv.set(["k"], 1);
    kv.close();
    assert.ok((await Deno.stat(`${dir}/.reins/deeper/runs.sqlite`)).isFile);
    await Deno.writeTextFile(`${dir}/file`, "x");
    await assert.rejects(
      () => openKv(`${dir}/file/x/runs.sqlite`),
      (e: Error) => e instanceof KvOpenError && !e.message.includes("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("progress lines of a child run name the node they come from", () => {
  const line = progressPrinter("r", 0);
  const base = { at: "", args: "{}" };
  assert.match(
    line({ ...base, type: "tool_start", runId: "r", toolName: "research", callId: "call_0_1" })!,
    /^ {2}tool research/,
  );
  assert.match(
    line({ ...base, type: "tool_start", runId: "r.call_0_1", toolName: "research", callId: "c" })!,
    /^ {2}\[research:call_0_1\] tool research\(\{\}\)/,
  );
  assert.match(
    line({
      type: "turn",
      runId: "r.call_0_1.c",
      at: "",
      turn: 2,
      prompt_tokens: 1,
      completion_tokens: 1,
      total_tokens: 2,
      turnCostUsd: 0,
      costUsd: 0,
      finish: "stop",
      ms: 1,
    })!,
    /^ {2}\[research:call_0_1 > research:c\] turn 2:/,
  );
  assert.equal(
    line({
      type: "run_stopped",
      runId: "r.call_0_1",
      at: "",
      status: "completed",
      reason: "the model answered",
      interruption: null,
      turns: 3,
      costUsd: 0,
    }),
    "  [research:call_0_1] stopped completed: the model answered",
  );
});

Deno.test("--help offers --scenario and --latency-ms only to a command line with scenarios", () => {
  // A user's cli({ agents }) has none: advertising them would send people to an error.
  assert.doesNotMatch(runUsage(), /--scenario|--latency-ms/);
  const demo = runUsage({ scenarios: ["plan", "echo"] });
  assert.match(demo, /--scenario NAME .*\n.*One of:\n\s+echo, plan/);
  assert.match(demo, /--latency-ms N/);
});
