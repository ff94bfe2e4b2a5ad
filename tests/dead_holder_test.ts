// A lease whose holder was SIGKILLed on this machine is taken over at once, under the
// permissions the tasks have (deno.json's own flags, not -A): `deno task run --resume`
// after a SIGKILL, and a server restarted on the same KV file. The lease time is far
// longer than the test may take, so only a take-over can pass. Prints the figures.
import assert from "node:assert/strict";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { sleep } from "../harness/sleep.ts";
import { lastJson, readUntil, spawnScript, taskFlags } from "./run_script.ts";
import { freePort } from "./server_http.ts";

Deno.test("under deno task run's flags, --resume after a SIGKILL takes over at once", async () => {
  assert.equal(Deno.permissions.querySync({ name: "read", path: "/proc" }).state, "granted");
  const dir = await Deno.makeTempDir({ prefix: "reins-dead-" });
  try {
    const flags = await taskFlags("run");
    assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"), flags.join(" "));
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const child = spawnScript("demo/cli.ts", ["--scenario", "slow", ...kv, "scan"], {
      cwd: dir,
      flags,
    });
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const out = await readUntil(reader, /progress: scanned 200/);
    const runId = out.match(/^run (\S+)$/m)?.[1];
    assert.ok(runId, out);
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
    await child.stderr.cancel();
    const t0 = performance.now();
    const resumed = spawnScript("demo/cli.ts", ["--resume", runId, "--json", ...kv], {
      cwd: dir,
      flags,
    });
    const err = resumed.stderr.pipeThrough(new TextDecoderStream()).getReader();
    const took = await readUntil(err, /taking over|waiting for the lease/);
    const tookMs = performance.now() - t0;
    const [rest, stdout, status] = await Promise.all([
      readUntil(err),
      new Response(resumed.stdout).text(),
      resumed.status,
    ]);
    assert.match(took, /is gone; taking over/);
    assert.equal(status.code, 0, took + rest);
    assert.equal(lastJson(stdout).status, "completed");
    console.log(`--resume took the dead process's lease over ${tookMs.toFixed(0)} ms after start`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const TOKEN = "dead-holder-token";

function startServer(dir: string, flags: string[], port: number) {
  return spawnScript("demo/main.ts", [], {
    cwd: dir,
    flags,
    env: {
      PORT: String(port),
      REINS_TOKEN: TOKEN,
      REINS_SCRIPTED: "1",
      REINS_KV_PATH: `${dir}/runs.sqlite`,
      REINS_WORKSPACES: `${dir}/ws`,
      REINS_SCAN_MS: "1500",
      REINS_LEASE_MS: "120000", // a take-over, never a lapse, can pass this test
    },
  });
}

async function api(port: number, method: string, path: string, body?: unknown) {
  for (let tries = 0;; tries++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return await res.json();
    } catch (e) {
      if (tries > 400) throw e;
      await sleep(50); // not listening yet
    }
  }
}

async function until(probe: () => Promise<boolean>, ms: number, what: string) {
  const t0 = performance.now();
  while (!(await probe())) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
  return performance.now() - t0;
}

Deno.test("a server restarted on the same KV resumes its SIGKILLed runs at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-dead-server-" });
  const kv = await Deno.openKv(`${dir}/runs.sqlite`);
  const store = () => new KvRunStore(kv);
  const flags = await taskFlags("serve");
  const port = freePort();
  let second: Deno.ChildProcess | undefined;
  try {
    const first = startServer(dir, flags, port);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await api(port, "POST", "/runs", { task: "scan", scenario: "slow" })).runId);
    }
    const leased = async () =>
      (await Promise.all(ids.map((id) => store().leaseHolder(id)))).every(Boolean);
    await until(leased, 20_000, "the runs to execute");
    first.kill("SIGKILL");
    await first.output();
    const t0 = performance.now();
    second = startServer(dir, flags, port);
    const firstOwner = (await store().leaseHolder(ids[0]))?.owner;
    const taken = async () =>
      (await Promise.all(ids.map((id) => store().leaseHolder(id)))).every((l) =>
        l && l.owner !== firstOwner
      );
    await until(taken, 20_000, "the restarted server to take the runs over");
    const resumedMs = performance.now() - t0;
    const finished = async () =>
      (await Promise.all(ids.map((id) => store().load(id)))).every((s) => s.status !== "running");
    await until(finished, 20_000, "the runs to finish");
    for (const id of ids) assert.equal((await store().load(id)).status, "completed");
    console.log(`restart -> all ${ids.length} killed runs resumed: ${resumedMs.toFixed(0)} ms`);
  } finally {
    if (second) {
      second.kill("SIGINT");
      await second.output();
    }
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
