// cli({ agents }) as a user project's `deno task run`: its own agent, the exit
// codes, --approve, --stop, runs, --json, an unknown agent.
import assert from "node:assert/strict";
import { runScript } from "./run_script.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";

Deno.test("cli({ agents }): a run of the user's agent, its approval, runs, --json, unknown agent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-agents-" });
  const kv = ["--kv", `${dir}/runs.sqlite`];
  // `runs` comes first, as a command; every other argument may come in any order.
  const run = (args: string[]) =>
    runScript(
      "tests/fixtures/support_cli.ts",
      args[0] === "runs" ? [...args, ...kv] : [...kv, ...args],
      {
        cwd: dir,
        env: { LLM_BASE_URL: "", LLM_MODEL: "" },
      },
    );
  try {
    const first = await run(["--agent", "support", "Please refund order 42"]);
    assert.equal(first.code, 5, first.stderr); // awaiting a verdict
    assert.match(first.stdout, /tool lookup_order\(\{"id":42\}\)/, "progress");
    assert.match(first.stdout, /tool refund awaits a verdict \(needs approval\)/);
    const id = first.stdout.match(/^run ([0-9a-f-]{36})$/m)?.[1];
    assert.ok(id, first.stdout);
    // The hints name the user's command, not this repository's `deno task run`.
    const hint = `deno run -A support_cli.ts --approve ${id} call_1_0`;
    assert.ok(first.stdout.includes(`  approve: ${hint}`), first.stdout);
    const shown = await run(["runs", "show", id]);
    assert.ok(shown.stdout.includes(`  approve: ${hint}`), shown.stdout);

    const listed = await run(["runs", "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((r: { runId: string }) => r.runId), [id]);

    // A CLI that does not serve the run's agent writes nothing (before: the verdict was
    // applied and the run set running, then refused).
    const elsewhere = await runScript("demo/cli.ts", [...kv, "--approve", id, "call_1_0"], {
      cwd: dir,
      env: { LLM_BASE_URL: "", LLM_MODEL: "" },
    });
    assert.equal(elsewhere.code, 2, elsewhere.stdout);
    assert.match(elsewhere.stderr, /is of agent "support", which is not among/);
    const still = JSON.parse((await run(["runs", "show", id, "--json"])).stdout);
    assert.equal(still.status, "interrupted");

    const approved = await run(["--approve", id, "call_1_0", "--json"]);
    assert.equal(approved.code, 0, approved.stderr);
    const summary = JSON.parse(approved.stdout.trim().split("\n").at(-1)!);
    assert.equal(summary.status, "completed");
    assert.equal(summary.agent, "support");
    assert.equal(summary.output, "Done: order 42: shipped, $20 | refunded order 42");

    const stop = await run(["--stop", id]);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, /^nothing to stop: run .* is completed, not executing$/m);

    const unknown = await run(["--agent", "demo", "x"]);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr.trim(), 'error: --agent: unknown agent "demo"; known: support');
    assert.equal(JSON.parse((await run(["runs", "--json"])).stdout).length, 1, "nothing stored");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli({ agents }): flags may only narrow the agent, as HTTP's requests; reins.jsonc gives defaults", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-cli-narrow-" });
  const kv = ["--kv", `${dir}/runs.sqlite`];
  const run = (args: string[]) =>
    runScript(
      "tests/fixtures/strict_cli.ts",
      args[0] === "runs" ? [...args, ...kv] : [...kv, ...args],
      {
        cwd: dir,
        env: { LLM_BASE_URL: "", LLM_MODEL: "" },
      },
    );
  const stored = async () => JSON.parse((await run(["runs", "--json"])).stdout).length;
  try {
    const refused = [
      [["--max-turns", "9"], "error: --max-turns: at most 8 (agent support's limit)\n"],
      [["--budget", "0.6"], "error: --budget: at most 0.5 (agent support's limit)\n"],
      [
        ["--budget-mode", "soft"],
        "--budget-mode: the agent's budget mode is hard; a request may not loosen it (agent support)",
      ],
      [["--tool-errors", "describe"], `--tool-errors: the agent's tool errors are "fatal"`],
    ] as const;
    for (const [flags, says] of refused) {
      const out = await run([...flags, "Please refund order 42"]);
      assert.equal(out.code, 2, `${flags.join(" ")}: ${out.stdout}`);
      assert.ok(out.stderr.includes(says), out.stderr);
    }
    assert.equal(await stored(), 0, "nothing stored");

    // The config file's settings are defaults where the agent sets nothing: not a loosening.
    await Deno.writeTextFile(
      `${dir}/reins.jsonc`,
      JSON.stringify({ budgetMode: "soft", toolErrors: "describe", limits: { maxTurns: 50 } }),
    );
    const first = await run([
      "--max-turns",
      "4",
      "--budget",
      "0.2",
      "--json",
      "Please refund order 42",
    ]);
    assert.equal(first.code, 5, first.stderr); // awaiting a verdict
    const id = first.stdout.match(/"runId":"([0-9a-f-]{36})"/)?.[1];
    assert.ok(id, first.stdout);
    const shown = JSON.parse((await run(["runs", "show", id, "--json"])).stdout);
    assert.deepEqual(shown.limits, { maxTurns: 4, maxBudgetUsd: 0.2 });
    // Stored with the run: nothing of the file's soft mode or describe (before: both, over
    // the agent's hard mode and fatal tool errors, on every resume).
    {
      using kvFile = await Deno.openKv(`${dir}/runs.sqlite`);
      const stored = await new KvRunStore(kvFile).settings(id) as { options?: unknown } | null;
      assert.deepEqual(stored?.options, {});
    }

    // A continuation's new limits: at most the agent's ceiling too.
    const over = await run(["--approve", id, "call_1_0", "--max-turns", "40"]);
    assert.equal(over.code, 2, over.stdout);
    assert.match(over.stderr, /--max-turns: at most 8 \(agent support's limit\)/);
    const approved = await run(["--approve", id, "call_1_0", "--max-turns", "8", "--json"]);
    assert.equal(approved.code, 0, approved.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli({ agents }) --help names the user's command, and its exit 0 is no demo's", async () => {
  for (const args of [["--help"], ["runs", "--help"]]) {
    const help = await runScript("tests/fixtures/support_cli.ts", args, {
      env: { LLM_BASE_URL: "", LLM_MODEL: "" },
    });
    assert.equal(help.code, 0, help.stderr);
    assert.doesNotMatch(help.stdout, /deno task run|experiment/);
    const usage = args[0] === "runs"
      ? "deno run -A support_cli.ts runs"
      : "deno run -A support_cli.ts";
    assert.ok(help.stdout.startsWith(`Usage: ${usage} [`), help.stdout.split("\n")[0]);
  }
});
