// A served process (serve() in tests/fixtures/endless_serve.ts) ends by itself:
// on SIGINT even while a client holds a response open (the runs are handed over,
// open responses get a grace, then the process exits, well before Deno Deploy's
// SIGKILL 5 s after SIGINT), and at once, saying why, when it cannot listen.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sleep } from "../harness/sleep.ts";
import { freePort } from "./server_http.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The fixture's server as a child process: `permissions` (default -A), its port and KV file. */
function fixture(
  port: number,
  env: Record<string, string>,
  permissions = ["-A"],
  extra: string[] = [],
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    cwd: ROOT,
    args: [
      "run",
      ...permissions,
      "--config",
      "deno.json",
      "tests/fixtures/endless_serve.ts",
      ...extra,
    ],
    env: { PORT: String(port), ...env },
    stdout: "piped",
    stderr: "piped",
  });
}

Deno.test("SIGINT with an endless response open: the process cuts it and exits", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const child = fixture(port, { REINS_KV_PATH: `${dir}/runs.sqlite` }).spawn();
  const output = child.output();
  const base = `http://127.0.0.1:${port}`;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    for (let i = 0; i < 200; i++) {
      const up = await fetch(`${base}/agents`).then(
        (r) => r.body?.cancel().then(() => r.ok),
        () => false,
      );
      if (up) break;
      await sleep(50);
    }
    const res = await fetch(`${base}/endless`);
    reader = res.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /data: open/);
    const t0 = performance.now();
    child.kill("SIGINT");
    // Deploy's SIGKILL would come at 5 s; before the grace, the process waited for the client.
    const timeout = new AbortController();
    const late = sleep(6000, timeout.signal).then(() => "late", () => "");
    const ended = await Promise.race([child.status.then(() => "exited"), late]);
    timeout.abort();
    const ms = performance.now() - t0;
    if (ended !== "exited") child.kill("SIGKILL");
    const out = await output;
    const log = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(ended, "exited", `still alive ${Math.round(ms)} ms after SIGINT:\n${log}`);
    assert.equal(out.code, 0, log);
    assert.match(log, /SIGINT: handing over 0 run\(s\)/);
    assert.match(log, /responses still open after 2000 ms: exiting/);
    assert.match(log, /stopped in \d+ ms/);
    // The client sees its response end (cut), not hang.
    await reader.read().then(() => {}, () => {});
  } finally {
    await reader?.cancel().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a port already taken: one line saying so, exit 1, nothing left running", async () => {
  const dir = await Deno.makeTempDir();
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const child = fixture(port, { REINS_KV_PATH: `${dir}/runs.sqlite` }).spawn();
  try {
    // Before, it stayed alive and silent (its KV handle and worker kept it).
    const timeout = new AbortController();
    const late = sleep(10_000, timeout.signal).then(() => "late", () => "");
    const ended = await Promise.race([child.status.then(() => "exited"), late]);
    timeout.abort();
    if (ended !== "exited") child.kill("SIGKILL");
    const out = await child.output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(ended, "exited", `still alive after 10 s:\n${err}`);
    assert.equal(out.code, 1, err);
    assert.match(
      err,
      new RegExp(`reins: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`),
    );
    assert.doesNotMatch(err, /\n\s+at /, "a stack trace");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without its permissions: one line naming them, exit 1, no stack trace", async () => {
  for (const given of [[], ["--allow-env"]]) {
    const out = await fixture(freePort(), {}, given).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, err);
    assert.match(err, /^reins: .*Requires \w+ access/m, err);
    assert.doesNotMatch(err, /\n\s+at /, `a stack trace:\n${err}`);
    // Before reins has read its config, it names every permission a server needs.
    if (!given.length) assert.match(err, /\(serve\(\) needs --allow-net --allow-env /, err);
  }
});

Deno.test("shutdown() from code with a response open: it returns, the process goes on", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const kv = { REINS_KV_PATH: `${dir}/runs.sqlite` };
    const out = await fixture(freePort(), kv, ["-A"], ["--shutdown-from-code"]).output();
    const log = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    // Before, the grace's end exited the process: shutdown() never returned.
    assert.match(log, /responses still open after 2000 ms: left to their clients/);
    assert.match(log, /after shutdown\(\)/);
    assert.equal(out.code, 0, log);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
