// The inspector starts a run of any agent, in a real browser: the demo server
// (three agents), chromium driven by `new_run_driver.ts` in its own process.
// Fails (never skips) when chromium is missing.
import assert from "node:assert/strict";
import { requireChromium, runDriver, startBrowserServer } from "./browser_server.ts";

const TOKEN = "new-run-browser-token";

Deno.test("the inspector's run list starts a run of the agent picked, and shows its agent", async () => {
  await requireChromium("the new-run browser test");
  await using server = await startBrowserServer({ token: TOKEN, prefix: "reins-new-run-" });
  const result = await runDriver("new_run_driver.ts", [
    server.base,
    TOKEN,
    `${server.dir}/run.png`,
  ]);
  assert.deepEqual(result.pageErrors, [], "no script error on the page");
  assert.deepEqual(result.options, ["demo", "demo-deep", "demo-cleanup", "demo-typed"]);
  assert.match(result.url, /\/ui\/runs\/[0-9a-f-]{36}$/);
  assert.match(result.rootLabel, /^demo-deep\s+root$/);
  assert.equal(result.agentCell, "demo-deep");
});
