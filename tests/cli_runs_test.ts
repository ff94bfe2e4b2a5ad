// `deno task runs` as a subprocess: showing a run exits 0 whatever its status;
// bad input and an unknown run id are one line on stderr and exit 2.
import assert from "node:assert/strict";
import { EXIT_CODES } from "../cli/exit_codes.ts";
import { RUNS_USAGE } from "../cli/runs.ts";
import { lastJson, runScript } from "./run_script.ts";

const cli = (args: string[], cwd: string, script = "cli/runs.ts") =>
  runScript(script, args, { cwd });

Deno.test("deno task runs: --help documents its exit codes", () => {
  assert.match(RUNS_USAGE, /^ {2}0 {2}printed what was asked/m);
  assert.match(RUNS_USAGE, /^ {2}2 {2}usage error: .*unknown run id/m);
});

Deno.test("deno task runs: show/trace/tree of a stored run exit 0 even when it awaits a verdict; bad input and an unknown id exit 2 with one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-runs-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const made = await cli(
      ["--scenario", "destructive", "--json", "--workspace", dir, ...kv],
      dir,
      "demo/cli.ts",
    );
    assert.equal(made.code, EXIT_CODES.approval, made.stderr);
    const runId = lastJson(made.stdout).runId;

    for (const sub of ["show", "trace", "tree"]) {
      const r = await cli([sub, runId, ...kv], dir);
      assert.equal(r.code, 0, `${sub}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(runId));
    }
    const shown = await cli(["show", runId, "--json", ...kv], dir);
    assert.equal(JSON.parse(shown.stdout).status, "interrupted");

    for (
      const [args, message] of [
        [["show", "no-such-run"], /^error: Run "no-such-run" not found$/],
        [["trace", "no-such-run"], /^error: Run "no-such-run" not found$/],
        [["tree", "no-such-run"], /^error: Run "no-such-run" not found$/],
        [["show"], /^error: runs show needs a run id$/],
        [["bogus"], /^error: unknown command "bogus"/],
        [["list", runId], /^error: runs list takes no run id/],
        [["--limit", "0"], /^error: --limit: /],
        [["--status", "done"], /^error: --status: /],
        [["--nope"], /^error: /],
      ] as const
    ) {
      const r = await cli([...args, ...kv], dir);
      assert.equal(r.code, EXIT_CODES.usage, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr.trim(), message, args.join(" "));
      assert.equal(r.stderr.trim().split("\n").length, 1, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task runs lists each run with its task", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-runs-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const long = "Please echo this rather long task back, word for word, to whoever asked for it";
    for (const task of ["Which file mentions a timeout?", long]) {
      const made = await cli(["--scenario", "echo", "--json", ...kv, task], dir, "demo/cli.ts");
      assert.equal(made.code, 0, made.stderr);
    }
    const r = await cli(["list", ...kv], dir);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trimEnd().split("\n");
    assert.match(header, /^ {2}id +status +turns +cost +age +task +why$/);
    assert.match(rows.join("\n"), /completed .* Which file mentions a timeout\? +/);
    assert.match(rows.join("\n"), / Please echo this rather long task back,… /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
