// The Deploy simulation's parts (tests/deploy_sim_test.ts, tests/deploy_versions_test.ts):
// instances of demo/main.ts as Deno Deploy runs them (DENO_DEPLOYMENT_ID set, no flags
// beyond deno.json's, the KV queue API throwing: tests/fixtures/deploy_entry.ts), under a
// given Deno binary, sharing one KV file.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sleep } from "../harness/sleep.ts";
import { freePort } from "./server_http.ts";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const TOKEN = "deploy-sim-token";
export const SCAN_MS = 2000; // scan_archive: the tool that is under way when A goes
export const LEASE_MS = 3000; // what a SIGKILLed instance's run waits for
export const SWEEP_MS = 1500; // each instance's local sweep timer

/** The Deno 2.5.0 binary, resolved once through npx (`.ci/run` fetches it beforehand). */
export async function deno25(): Promise<string> {
  const out = await new Deno.Command("npx", {
    args: ["-y", "deno@2.5.0", "eval", "console.log(Deno.execPath(), Deno.version.deno)"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const [path, version] = new TextDecoder().decode(out.stdout).trim().split(" ");
  assert.equal(version, "2.5.0", "npx -y deno@2.5.0 did not give Deno 2.5.0");
  return path;
}

/** One running instance. */
export interface Instance {
  name: string;
  port: number;
  child: Deno.ChildProcess;
  owner: string;
  /** Process start to first answered request, in ms. */
  coldStartMs: number;
  exited: Promise<Deno.CommandStatus>;
  log: () => string;
}

/**
 * Starts an instance under `bin` on the KV file in `dir`, with `env` added to
 * its environment; resolves once it answers.
 */
export async function startInstance(
  bin: string,
  name: string,
  dir: string,
  sweepMs = SWEEP_MS,
  env: Record<string, string> = {},
): Promise<Instance> {
  const port = freePort();
  const t0 = performance.now();
  const child = new Deno.Command(bin, {
    cwd: ROOT,
    args: ["run", "-A", "--config", "deno.json", "tests/fixtures/deploy_entry.ts"],
    env: {
      DENO_DEPLOYMENT_ID: `sim-${name}`,
      PORT: String(port),
      REINS_TOKEN: TOKEN,
      REINS_SCRIPTED: "1",
      REINS_KV_PATH: `${dir}/runs.sqlite`,
      REINS_WORKSPACES: `${dir}/ws-${name}`, // each instance has its own disk
      REINS_SCAN_MS: String(SCAN_MS),
      REINS_LEASE_MS: String(LEASE_MS),
      REINS_SWEEP_MS: String(sweepMs),
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const drain = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) text += chunk;
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const exited = child.status.then(async (s) => (await drained, s));
  for (;;) {
    // Uncompressed: under Deno 2.5 a keep-alive connection that carried a gzipped answer
    // this large (the OpenAPI document, ~8 KB gzipped) holds `server.shutdown()` for as
    // long as the client keeps it open (runs are handed over all the same): not what
    // these tests measure.
    const res = await fetch(`http://127.0.0.1:${port}/openapi.json`, {
      headers: { authorization: `Bearer ${TOKEN}`, "accept-encoding": "identity" },
    }).catch(() => null);
    if (res) {
      await res.arrayBuffer();
      const owner = res.headers.get("x-reins-worker") ?? "";
      return {
        name,
        port,
        child,
        owner,
        coldStartMs: performance.now() - t0,
        exited,
        log: () => text,
      };
    }
    if (performance.now() - t0 > 20_000) throw new Error(`${name} did not start:\n${text}`);
    await sleep(5);
  }
}

/** One authorised request to an instance; its status and JSON body. */
export async function call(i: Instance, method: string, path: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${i.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Resident memory of a process, in kB. */
export function rssKb(pid: number): number {
  const line = Deno.readTextFileSync(`/proc/${pid}/status`).split("\n").find((l) =>
    l.startsWith("VmRSS:")
  );
  return Number(line?.match(/(\d+)/)?.[1] ?? NaN);
}

/** Polls `probe` every 5 ms; resolves with ms since `since` when it first holds. */
export async function until(
  what: string,
  since: number,
  probe: () => Promise<boolean>,
  ms = 20_000,
) {
  for (;;) {
    if (await probe()) return performance.now() - since;
    if (performance.now() - since > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Kills what is left of `instances` (SIGKILL) and waits for each to exit. */
export async function stopInstances(instances: readonly Instance[]): Promise<void> {
  for (const i of instances) {
    try {
      i.child.kill("SIGKILL");
    } catch {
      // exited already
    }
    await i.exited;
  }
}
