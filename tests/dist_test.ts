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

Deno.test("the bundle renames no class and no exported function", async () => {
  // Errors name themselves with new.target.name; the bundler renames a top-level
  // name that collides with another module's (execute -> execute2), which only
  // stack traces of internal functions may show.
  const sourceClasses = new Set<string>();
  const layers = ["harness", "openai", "ai_sdk", "tools", "testing", "kv", "mcp", "subagents"];
  for (const dir of [...layers, "runtime", "server", "cli", "demo", "otel", "model"]) {
    await collectClasses(new URL(`${dir}/`, root), sourceClasses);
  }
  const distClasses = new Set<string>();
  await collectClasses(new URL("dist/", root), distClasses);
  assert.ok(distClasses.size > 10);
  for (const name of distClasses) {
    assert.ok(sourceClasses.has(name), `dist renamed a class: ${name}`);
  }
  for (const [name, path] of entries) {
    const built = await import(new URL(path, root).href);
    for (const [key, value] of Object.entries(built)) {
      if (typeof value === "function") assert.equal(value.name, key, `${name}: ${key}`);
    }
  }
});

Deno.test("every entry reaches the whole core, so mod.js loads it as one shared file", async () => {
  // The bundler may still cut a module shared with a split-off entry into a file of its own.
  const chunks = await coreChunks();
  assert.ok(chunks.size <= 2, `mod.js loads ${chunks.size} chunks: ${[...chunks]}`);
  const { wrapperText } = await import("../scripts/entry_wrappers.ts");
  const none = new Set<string>();
  assert.equal(
    wrapperText("kv/mod.ts", "../", none),
    'import "../mod.ts";\nexport * from "../kv/mod.ts";\n',
  );
  assert.equal(wrapperText("mod.ts", "../", none), 'export * from "../mod.ts";\n');
  assert.equal(
    wrapperText("model/mod.ts", "../", new Set(["model/mod.ts"])),
    'export * from "../model/mod.ts";\n',
  );
});

Deno.test("dist's top-level functions are compiled with their module (cached), named as before", async () => {
  const { eagerFunctions } = await import("../scripts/eager_functions.ts");
  const { LAZY_MODULES } = await import("../scripts/bundle.ts");
  // The core entry's files (what every run calls); the others stay lazy, and
  // so do the core's modules that no plain turn calls.
  const core = ["mod.js", ...await coreChunks()];
  let wrapped = 0, lazy = 0;
  for (const name of core) {
    const text = await Deno.readTextFile(new URL(`dist/${name}`, root));
    // Built once more, a core file has nothing left to wrap but LAZY_MODULES' functions.
    assert.equal(eagerFunctions(text, LAZY_MODULES).wrapped, 0, `${name}: a lazy declaration`);
    lazy += eagerFunctions(text).wrapped;
    wrapped += text.match(/^var ([\w$]+) = \((async )?function\*? ?\1\(/gm)?.length ?? 0;
  }
  assert.ok(wrapped > 120 && lazy > 20, `${wrapped} eager functions, ${lazy} lazy`);
  const server = await Deno.readTextFile(new URL("dist/server/mod.js", root));
  assert.match(server, /^function\b/m, "the server's own functions stay lazy");
  // A function it cannot close is an error, never a guess.
  assert.throws(() => eagerFunctions("function f() {\n  return `\n  }`;"), SyntaxError);
  const { code } = eagerFunctions("async function* g(a) {\n  yield a;\n}\n");
  assert.equal(code, "var g = (async function* g(a) {\n  yield a;\n});\n");
  // A lazy module's functions keep their declarations; the next module's are wrapped.
  const two = "// a/rare.ts\nfunction r() {\n}\n// a/hot.ts\nfunction h() {\n}\n";
  const some = eagerFunctions(two, new Set(["a/rare.ts"]));
  assert.equal(
    some.code,
    "// a/rare.ts\nfunction r() {\n}\n// a/hot.ts\nvar h = (function h() {\n});\n",
  );
  assert.deepEqual([some.wrapped, some.modules], [1, ["a/rare.ts", "a/hot.ts"]]);
});

/** The chunks dist/mod.js imports. */
async function coreChunks(): Promise<Set<string>> {
  const mod = await Deno.readTextFile(new URL("dist/mod.js", root));
  return new Set(mod.match(/(?<=from "\.\/|import "\.\/)chunk-[\w-]+\.js/g));
}

/** Adds the name of every class declared in the .ts/.js files under `dir`. */
async function collectClasses(dir: URL, into: Set<string>): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) await collectClasses(url, into);
    else if (/\.(ts|js)$/.test(entry.name)) {
      // The bundle declares `var Name = class ...`; the sources, `class Name`.
      const text = await Deno.readTextFile(url);
      for (const m of text.matchAll(/\bclass ([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*) = class\b/g)) {
        into.add(m[1] ?? m[2]);
      }
    }
  }
}

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
