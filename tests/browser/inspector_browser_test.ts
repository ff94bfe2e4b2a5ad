// The run inspector in a real browser: Debian's chromium driven by
// playwright-core (in `inspector_driver.ts`, its own process: playwright
// needs more of the system than the test runner is allowed), against the
// real server (`server/main.ts` on a free port, a temp KV file, the scripted
// provider, a bearer token). The driver watches a slow tree's progress bar
// move, Stops it, rejects badly and approves a destructive run, and sees the
// API's 409 for a stale verdict; this test then checks the outcome through
// the API. Fails (never skips) when chromium is missing.
//
// Set UPDATE_SCREENSHOT=1 to write docs/inspector.png (the slow tree mid-scan).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { freePort, waitFor as poll } from "../server_http.ts";

// Probes that throw (a server not up yet) are retried.
const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 50 });

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "inspector-browser-token";
/** Debian's chromium (the driver launches it; importing the driver would load playwright here). */
const CHROMIUM = "/usr/bin/chromium";

Deno.test("the inspector in chromium: watch a tree, Stop it, reject, approve", async () => {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `${CHROMIUM} is missing: the inspector's browser test needs Debian's chromium ` +
        "(apt-get install -y chromium; .ci/run installs it)",
    );
  }
  const started = Date.now();
  const dir = await Deno.makeTempDir({ prefix: "reins-inspector-" });
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = new Deno.Command(Deno.execPath(), {
    cwd: ROOT,
    args: [
      "run",
      "--frozen",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "server/main.ts",
    ],
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      REINS_KV_PATH: `${dir}/runs.sqlite`,
      REINS_WORKSPACES: `${dir}/workspaces`,
      REINS_TOKEN: TOKEN,
      REINS_SCRIPTED: "1",
      REINS_SCAN_MS: "6000",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const serverOutput = Promise.all(
    [server.stdout, server.stderr].map((s) => new Response(s).text()),
  );
  // deno-lint-ignore no-explicit-any
  const api = async (path: string): Promise<any> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = await res.json();
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(body)}`);
    return body;
  };
  try {
    await waitFor(() => api("/runs").then(() => true), "the server to listen", 20_000);
    const screenshot = Deno.env.get("UPDATE_SCREENSHOT") === "1"
      ? `${ROOT}docs/inspector.png`
      : `${dir}/inspector.png`;
    const driver = await new Deno.Command(Deno.execPath(), {
      cwd: ROOT,
      args: ["run", "--frozen", "-A", "tests/browser/inspector_driver.ts", base, TOKEN, screenshot],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(90_000),
    }).output();
    const out = new TextDecoder().decode(driver.stdout);
    const err = new TextDecoder().decode(driver.stderr);
    assert.ok(driver.success, `the browser driver failed (${driver.code}):\n${out}\n${err}`);
    const result = JSON.parse(out.trim().split("\n").at(-1)!);

    // What the page showed, through the API: the whole tree stopped by the page's Stop,
    // the destructive run approved from the page.
    assert.equal(result.nodes.length, 3);
    for (const id of result.nodes) {
      const run = await api(`/runs/${encodeURIComponent(id)}`);
      assert.equal(run.status, "interrupted", id);
      assert.deepEqual(run.interruption, {
        type: "cancelled",
        reason: "enough scanning (from the page)",
      });
    }
    const approved = await api(`/runs/${result.destructive}`);
    assert.equal(approved.status, "completed");
    assert.ok((await Deno.stat(screenshot)).size > 10_000, "a screenshot was saved");
    console.log(
      `inspector in chromium: progress ${result.progress.join(" -> ")}, ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
    const status = await server.status;
    clearTimeout(timer);
    const [out, err] = await serverOutput;
    await Deno.remove(dir, { recursive: true });
    if (!status.success) console.error(out, err);
  }
});
