/**
 * dist/ is what users load (deno.json's `exports`): each entry must offer
 * what its TypeScript source offers, share classes with the other entries,
 * and keep the names errors report. (`deno task build --check`, in
 * `deno task ok`, holds dist/ to what the sources build.)
 */
import assert from "node:assert/strict";
import config from "../deno.json" with { type: "json" };

const root = new URL("../", import.meta.url);
const entries = Object.entries(config.exports as Record<string, string>);

Deno.test("each dist entry exports what its source exports, and names its types", async () => {
  assert.equal(entries.length, 12);
  for (const [name, path] of entries) {
    assert.match(path, /^\.\/dist\/.+\.js$/, name);
    const source = path.replace(/^\.\/dist\//, "./").replace(/\.js$/, ".ts");
    const [built, original] = await Promise.all([
      import(new URL(path, root).href),
      import(new URL(source, root).href),
    ]);
    assert.deepEqual(Object.keys(built).sort(), Object.keys(original).sort(), name);
    const head = (await Deno.readTextFile(new URL(path, root))).split("\n", 1)[0];
    const types = new URL(/@ts-self-types="([^"]+)"/.exec(head)?.[1] ?? "", new URL(path, root));
    assert.equal(types.href, new URL(source, root).href, `${name}: ${head}`);
  }
});

Deno.test("dist entries share one copy of each class, and errors keep their names", async () => {
  const reins = await import("../dist/mod.js");
  const kv = await import("../dist/kv/mod.js");
  const runtime = await import("../dist/runtime/mod.js");
  const e = new reins.RunStateError("r1", "completed", "resume");
  assert.equal(e.name, "RunStateError");
  assert.ok(e instanceof reins.ReinsError);
  // An error thrown through ./runtime is the class ./kv exports, a ReinsError of ./mod.ts.
  const db = await Deno.openKv(":memory:");
  try {
    const store = new kv.KvRunStore(db);
    const model = reins.createOpenAIModel({ model: "m", baseUrl: "http://127.0.0.1:9/v1" });
    await assert.rejects(
      () => runtime.executeRun(store, "nope", { model }),
      (err: unknown) =>
        err instanceof kv.RunNotFoundError && err instanceof reins.ReinsError &&
        err.name === "RunNotFoundError",
    );
  } finally {
    db.close();
  }
});
