import assert from "node:assert/strict";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { newRun } from "../harness/state.ts";
import { lastJson, readUntil, runScript, spawnScript } from "./run_script.ts";

const cli = (args: string[], cwd?: string) => runScript("demo/cli.ts", args, { cwd });

/** A stored `running` echo run whose lease a holder on another machine holds for `leaseMs`. */
async function foreignLease(path: string, leaseMs: number): Promise<string> {
  const kv = await Deno.openKv(path);
  try {
    const s = newRun("hello from elsewhere", { model: "echo" });
    await new KvRunStore(kv).save(s);
    const other = new KvRunStore(kv, {
      owner: "worker-on-b",
      leaseMs,
      holder: { host: "machine-b.invalid", pid: 4242 },
    });
    assert.ok(await other.acquireLease(s.runId));
    return s.runId;
  } finally {
    kv.close();
  }
}

Deno.test("--resume after a SIGKILL takes over the dead process's lease at once and finishes the run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-resume-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const child = spawnScript("demo/cli.ts", ["--scenario", "slow", ...kv, "scan the archive"], {
      cwd: dir,
    });
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const out = await readUntil(reader, /progress: scanned 200/);
    const runId = out.match(/^run (\S+)$/m)?.[1];
    assert.ok(runId, out);
    child.kill("SIGKILL");
    const status = await child.status;
    await reader.cancel();
    await child.stderr.cancel();
    assert.equal(status.signal, "SIGKILL");

    const resumed = await cli(["--resume", runId, "--json", ...kv], dir);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(
      resumed.stderr,
      new RegExp(
        `run ${runId}: its lease holder pid\\d+-\\S+ \\(pid ${child.pid} on .+\\) is gone; taking over`,
      ),
    );
    const s = lastJson(resumed.stdout);
    assert.equal(s.status, "completed");
    // The same scenario plays on: the scan's answer, not another scenario's.
    assert.match(s.output, /^Scanned the archive: scanned 1200 files/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--resume of a run another live machine executes names the holder and gives up after --wait", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-resume-" });
  try {
    const path = `${dir}/runs.sqlite`;
    const runId = await foreignLease(path, 60_000);
    const r = await cli(["--resume", runId, "--wait", "0.3", "--kv", path], dir);
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split("\n");
    assert.match(
      lines[0],
      /waiting for the lease of worker-on-b \(pid 4242 on machine-b\.invalid\), which lapses in \d+ s/,
    );
    assert.match(
      lines.at(-1)!,
      new RegExp(
        `^error: Run "${runId}" was changed concurrently: run is being executed by worker-on-b .*lapses in \\d+ s`,
      ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--resume waits for a live holder's lease to lapse, with progress on stderr, then runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-resume-" });
  try {
    const path = `${dir}/runs.sqlite`;
    const runId = await foreignLease(path, 1_500);
    const r = await cli(["--resume", runId, "--json", "--kv", path, "--workspace", dir], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /waiting for the lease of worker-on-b/);
    assert.doesNotMatch(r.stderr, /taking over/);
    const s = lastJson(r.stdout);
    assert.equal(s.status, "completed");
    assert.equal(s.output, "hello from elsewhere");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
