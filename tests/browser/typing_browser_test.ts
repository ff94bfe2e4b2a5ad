// The inspector types the answer as it streams, in a real browser: the server
// (`server/main.ts`, the scripted provider pacing its chunks with
// REINS_SCRIPTED_CHUNK_MS) and chromium driven by `typing_driver.ts` in its own
// process. While the `plan` run is still running, the transcript's "writing"
// entry must hold a part of the final answer that no committed reply holds yet.
// Fails (never skips) when chromium is missing.
//
// Set TYPING_SCREENSHOTS=<prefix> to keep the mid-stream screenshots.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { freePort, waitFor as poll } from "../server_http.ts";

const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 50 });

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "typing-browser-token";
const CHROMIUM = "/usr/bin/chromium";

Deno.test("the inspector types the answer into the page before the reply is committed", async () => {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(`${CHROMIUM} is missing: the typing browser test needs Debian's chromium`);
  }
  const dir = await Deno.makeTempDir({ prefix: "reins-typing-" });
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
      "--unstable-no-legacy-abort",
      "server/main.ts",
    ],
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      REINS_KV_PATH: `${dir}/runs.sqlite`,
      REINS_WORKSPACES: `${dir}/workspaces`,
      REINS_TOKEN: TOKEN,
      REINS_SCRIPTED: "1",
      // Slow enough that the typing is seen between polls of the page.
      REINS_SCRIPTED_CHUNK_MS: "80",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const serverOutput = Promise.all(
    [server.stdout, server.stderr].map((s) => new Response(s).text()),
  );
  try {
    await waitFor(
      () =>
        fetch(`${base}/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })
          .then((r) => r.body?.cancel().then(() => r.ok || undefined)),
      "the server to listen",
    );
    const shots = Deno.env.get("TYPING_SCREENSHOTS") ?? `${dir}/typing`;
    const driver = await new Deno.Command(Deno.execPath(), {
      cwd: ROOT,
      args: ["run", "--frozen", "-A", "tests/browser/typing_driver.ts", base, TOKEN, shots],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(90_000),
    }).output();
    const out = new TextDecoder().decode(driver.stdout);
    const err = new TextDecoder().decode(driver.stderr);
    assert.ok(driver.success, `the browser driver failed (${driver.code}):\n${out}\n${err}`);
    const result = JSON.parse(out.trim().split("\n").at(-1)!);
    assert.equal(result.status, "completed");
    assert.deepEqual(result.pageErrors, [], "no script error on the page");
    const final: string = result.final;
    assert.ok(final.length > 20, `final answer ${JSON.stringify(final)}`);
    // The answer was typed in part while no committed reply held it yet.
    const early = (result.typed as { text: string; committed: string[]; aligned: boolean }[])
      .filter((t) =>
        t.text.length < final.length && final.startsWith(t.text) &&
        !t.committed.some((c) => c.includes(final))
      );
    assert.ok(
      early.length > 0,
      `no prefix of the answer typed before it was committed: ${JSON.stringify(result.typed)}`,
    );
    assert.ok(early.every((t) => t.aligned === true), "the writing entry is out of line");
    // The tree node typed it too, and the writing entry is gone once the reply is in.
    assert.ok((result.node as string[]).some((t) => final.startsWith(t) && t.length > 0));
    assert.equal(result.last.typed, null);
    assert.ok(result.last.committed.some((c: string) => c.includes(final)));
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
