// What `deno task run` refuses before a run exists (exit 2, one line, nothing stored),
// and what it says when there is nothing to do: under the task's own flags.
import assert from "node:assert/strict";
import { checkLimits } from "../harness/limits.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { newRun } from "../harness/state.ts";
import { readStop } from "../kv/stop_record.ts";
import { runScript, taskFlags } from "./run_script.ts";

async function inTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reins-refusals-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const cli = async (args: string[], cwd: string) =>
  await runScript("demo/cli.ts", args, { cwd, flags: await taskFlags("run") });

async function storedRuns(path: string): Promise<number> {
  const kv = await Deno.openKv(path);
  try {
    return (await new KvRunStore(kv).list({})).length;
  } finally {
    kv.close();
  }
}

Deno.test("--trace, --base-url, --kv and --max-turns 0 are refused in one line, exit 2, nothing stored", async () => {
  await inTemp(async (dir) => {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const cases: [string[], RegExp][] = [
      [
        ["--trace", `${dir}/no/such/trace.jsonl`, ...kv, "--scenario", "echo"],
        /^error: --trace ".*no\/such\/trace\.jsonl": no such folder$/,
      ],
      [["--trace", dir, ...kv, "--scenario", "echo"], /^error: --trace ".*": is a folder$/],
      [
        ["--base-url", "localhost:8788", "--model", "m", ...kv, "hi"],
        /^error: --base-url "localhost:8788": expected an http:\/\/ or https:\/\/ URL/,
      ],
      [
        ["--base-url", "not a url", "--model", "m", ...kv, "hi"],
        /^error: --base-url "not a url": expected an http:\/\/ or https:\/\/ URL/,
      ],
      [
        ["--kv", "/proc/reins/runs.sqlite", "--scenario", "echo"],
        /^error: Cannot open KV database "\/proc\/reins\/runs\.sqlite": .*"\/proc\/reins" is in a system folder \(\/proc, \/dev, \/sys\), where no database can be kept: give a path in an ordinary folder$/,
      ],
      [
        ["--max-turns", "0", ...kv, "--scenario", "echo"],
        /^error: --max-turns: expected an integer of at least 1, got "0"$/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args, dir);
      assert.equal(r.code, 2, `${args.join(" ")}\n${r.stderr}`);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr.trim(), message);
      assert.equal(r.stdout, "", args.join(" "));
    }
    assert.equal(await storedRuns(`${dir}/runs.sqlite`), 0, "no run was stored");
    await assert.rejects(async () => await Deno.stat(`${dir}/no`), Deno.errors.NotFound);
  });
});

Deno.test("a base URL nothing listens on fails at the first refusal, in one line, not after retries", async () => {
  await inTemp(async (dir) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${listener.addr.port}/v1`;
    listener.close();
    const r = await cli(
      ["--base-url", url, "--model", "m", "--kv", `${dir}/runs.sqlite`, "hi"],
      dir,
    );
    assert.equal(r.code, 1, r.stderr);
    const said = r.stdout.split("\n").filter((l) => l.includes("Nothing listens"));
    assert.deepEqual(said.length, 1, r.stdout);
    assert.match(
      said[0],
      new RegExp(`Nothing listens at ${url}/chat/completions: connection refused\\)$`),
    );
    assert.doesNotMatch(r.stdout, /attempts/);
  });
});

Deno.test("--stop of a finished run says there is nothing to stop and records no Stop", async () => {
  await inTemp(async (dir) => {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const done = await cli(["--scenario", "echo", "--json", ...kv, "hello"], dir);
    assert.equal(done.code, 0, done.stderr);
    const runId = JSON.parse(done.stdout.trim().split("\n").at(-1)!).runId;
    const r = await cli(["--stop", runId, ...kv], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `nothing to stop: run ${runId} is completed, not executing`);
    const kvFile = await Deno.openKv(`${dir}/runs.sqlite`);
    assert.equal(await readStop(kvFile, runId), null);
    kvFile.close();
  });
});

Deno.test("limits.maxTurns 0 is refused by the library as by the CLI, the config and the API", () => {
  assert.throws(() => checkLimits({ maxTurns: 0 }), /limits\.maxTurns must be at least 1/);
  assert.deepEqual(checkLimits({ maxTurns: 1 }).maxTurns, 1);
  assert.equal(newRun("x").limits.maxTurns, 20);
});
