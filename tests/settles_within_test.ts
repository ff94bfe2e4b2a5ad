// One bounded wait (harness/settles_within.ts) for a stdio MCP server's exit
// and a server's shutdown: in time, too late, or rejected; never a timer left.
import assert from "node:assert/strict";
import { settlesWithin } from "../harness/settles_within.ts";

Deno.test("settlesWithin: true when the promise resolves in time", async () => {
  const p = new Promise<void>((r) => setTimeout(r, 5));
  assert.equal(await settlesWithin(p, 2_000), true);
});

Deno.test("settlesWithin: false once the time passes, the timer cleared", async () => {
  const t0 = performance.now();
  assert.equal(await settlesWithin(new Promise(() => {}), 30), false);
  const took = performance.now() - t0;
  assert.ok(took >= 29, `returned after ${took} ms, before its 30`);
});

Deno.test("settlesWithin: a rejection in time rejects, and clears the timer", async () => {
  await assert.rejects(settlesWithin(Promise.reject(new Error("gone")), 5_000), /gone/);
});
