// The test side of the browser tests: the real server (`demo/main.ts` on a
// free port, a temp KV file, the scripted provider, a bearer token) and a
// driver process that points chromium at it. Nothing here loads playwright:
// the drivers do, in their own process (see `with_page.ts`).
import assert from "node:assert/strict";
import { freePort, waitFor as poll } from "../server_http.ts";
import { DEV_LOCK, lastJson, ROOT, runScript, spawnScript } from "../run_script.ts";

/** Where Debian's chromium lives. */
export const CHROMIUM = "/usr/bin/chromium";

/** Polls `probe`; probes that throw (a server not up yet) are retried. */
export const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 50 });

/** Fails (never skips) when chromium is missing; `what` names the test that needs it. */
export async function requireChromium(what: string): Promise<void> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `${CHROMIUM} is missing: ${what} needs Debian's chromium ` +
        "(apt-get install -y chromium; .ci/run installs it)",
    );
  }
}

/** A listening server over a temp folder; disposing it stops it and removes the folder. */
export interface BrowserServer extends AsyncDisposable {
  base: string;
  /** The temp folder holding its KV file and workspaces. */
  dir: string;
}

/** How the server is started, besides what every browser test gives it. */
export interface BrowserServerOptions {
  token: string;
  /** The temp folder's prefix. */
  prefix: string;
  /** More environment (the scripted provider's pacing). */
  env?: Record<string, string>;
  /** More `deno run` flags. */
  flags?: string[];
}

/** Starts `demo/main.ts` and waits until `GET /runs` answers 200 with the token. */
export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const dir = await Deno.makeTempDir({ prefix: options.prefix });
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const flags = ["--allow-net", "--allow-env", "--allow-read", "--allow-write"];
  const server = spawnScript("demo/main.ts", [], {
    cwd: ROOT,
    flags: ["--frozen", ...flags, ...options.flags ?? []],
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      REINS_KV_PATH: `${dir}/runs.sqlite`,
      REINS_WORKSPACES: `${dir}/workspaces`,
      REINS_TOKEN: options.token,
      REINS_SCRIPTED: "1",
      ...options.env,
    },
  });
  const output = Promise.all([server.stdout, server.stderr].map((s) => new Response(s).text()));
  const stop = async () => {
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
    const status = await server.status;
    clearTimeout(timer);
    const [out, err] = await output;
    await Deno.remove(dir, { recursive: true });
    if (!status.success) console.error(out, err);
  };
  try {
    await waitFor(
      () =>
        fetch(`${base}/runs`, { headers: { authorization: `Bearer ${options.token}` } })
          .then((r) => r.body?.cancel().then(() => r.ok || undefined)),
      "the server to listen",
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { base, dir, [Symbol.asyncDispose]: stop };
}

/** Runs a driver (`tests/browser/<driver>`) with -A; asserts it succeeded; its last JSON line. */
// deno-lint-ignore no-explicit-any
export async function runDriver(driver: string, args: string[]): Promise<any> {
  const { code, stdout, stderr } = await runScript(`tests/browser/${driver}`, args, {
    cwd: ROOT,
    flags: ["--frozen", DEV_LOCK, "-A"],
    timeoutMs: 90_000,
  });
  assert.equal(code, 0, `the browser driver failed (${code}):\n${stdout}\n${stderr}`);
  return lastJson(stdout);
}
