// The inspector types the answer as it streams, in a real browser: the server
// (`demo/main.ts`, the scripted provider pacing its chunks with
// REINS_SCRIPTED_CHUNK_MS) and chromium driven by `typing_driver.ts` in its own
// process. While the `plan` run is still running, the transcript's "writing"
// entry must hold a part of the final answer that no committed reply holds yet.
// Fails (never skips) when chromium is missing.
//
// Set TYPING_SCREENSHOTS=<prefix> to keep the mid-stream screenshots.
import assert from "node:assert/strict";
import { requireChromium, runDriver, startBrowserServer } from "./browser_server.ts";

const TOKEN = "typing-browser-token";

Deno.test("the inspector types the answer into the page before the reply is committed", async () => {
  await requireChromium("the typing browser test");
  await using server = await startBrowserServer({
    token: TOKEN,
    prefix: "reins-typing-",
    // Slow enough that the typing is seen between polls of the page.
    env: { REINS_SCRIPTED_CHUNK_MS: "80" },
    flags: ["--unstable-no-legacy-abort"],
  });
  const shots = Deno.env.get("TYPING_SCREENSHOTS") ?? `${server.dir}/typing`;
  const result = await runDriver("typing_driver.ts", [server.base, TOKEN, shots]);
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
});
