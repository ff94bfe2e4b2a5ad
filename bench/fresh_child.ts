/**
 * One fresh process of the cold-path bench (bench/fresh.ts spawns it):
 * `deno run bench/fresh_child.ts <mode> [baseUrl]`. Every module it needs is
 * imported dynamically inside its mode, by a computed specifier (see
 * {@link load}), so a mode loads only its own graph.
 * Prints one JSON line: the ms from process start to the end of the imports
 * and to the end of the work (`performance.now()` counts from the start).
 *
 * Issue 29's setup (the two tiny tools of bench/tiny_tools.ts): `bare` /
 * `bare-stream` run the truly bare loop (bench/tiny_loop.ts: its own fetch
 * loop and zod, nothing of reins), `reins` / `reins-plain` run mod.ts (as
 * users load it: dist/mod.js, built by `deno task build`) with the
 * same tools made by `defineTool`, `reins-kv` / `reins-kv-plain` add kv/mod.ts
 * (a `KvRunStore` and its trace sink on a temp SQLite file); each runs `plan`
 * (3 turns) against the OpenAI-compatible endpoint at `baseUrl`, then a
 * 50-turn `runaway` for the steady ms per turn; reins with the default soft
 * budget; streamed replies, or plain with `-plain` (the bare loop: plain, or
 * streamed with `-stream`). `import-bare` / `import-mod` import the bare
 * loop's modules / dist/mod.js and the tiny tools, then exit; `import-src`
 * imports mod.ts's TypeScript sources instead (what the bundle saves).
 *
 * Issue 14's setup (the demo's tools on a real workspace, tools/catalog.ts):
 * `bare-demo-stream` (bench/bare_loop.ts, streamed) and `reins-demo`
 * (streamed), `import-demo-bare` / `import-demo-mod`.
 *
 * Others: `empty` (nothing), `tok-js-tiktoken` / `tok-gpt-tokenizer` (build
 * the o200k encoder and count one string).
 *
 * @module
 */
const [mode, baseUrl = ""] = Deno.args;

/**
 * Imports `specifier` (relative to this file, or mapped by deno.json). Never
 * with a literal: Deno loads and parses every module a literal dynamic import
 * names when the process starts, so each mode would pay for all the others'
 * graphs (about 7 ms and 1.3 MB of a bare run).
 */
const load = (specifier: string) => import(specifier);
const TASK = "Which file mentions a timeout?";
const SAMPLE = "Which file mentions a timeout? errors.log: 2024-01-01 ERROR timeout after 30s";
const STEADY_TURNS = 50;

/** What a mode measured (ms from process start, ms per steady turn) and reports besides. */
interface Measured {
  imported: number;
  planMs?: number;
  steadyMs?: number;
  extra?: Record<string, unknown>;
}

/** `plan`, then the steady runaway; `go` runs one scenario for at most that many turns. */
async function planThenRunaway<R extends { turns: number; output: unknown }>(
  imported: number,
  go: (scenario: string, maxTurns: number) => Promise<R>,
  more: (done: R) => Record<string, unknown> = () => ({}),
): Promise<Measured> {
  const done = await go("plan", 10);
  const planMs = performance.now();
  const extra = { turns: done.turns, output: done.output, ...more(done) };
  await go("runaway", STEADY_TURNS);
  return { imported, planMs, steadyMs: (performance.now() - planMs) / STEADY_TURNS, extra };
}

/** Issue 29's bare loop: its own fetch loop, zod and the tiny tools. */
async function tinyBare(stream: boolean): Promise<Measured> {
  const { tinyLoop }: typeof import("./tiny_loop.ts") = await load("./tiny_loop.ts");
  return await planThenRunaway(
    performance.now(),
    (scenario, turns) => tinyLoop(baseUrl, scenario, TASK, turns, stream),
  );
}

/** reins (mod.ts) with the tiny tools; with `kv`, a `KvRunStore` and its trace on a temp file. */
async function tinyReins(stream: boolean, kvMode: boolean): Promise<Measured> {
  const reins: typeof import("../mod.ts") = await load("../dist/mod.js");
  const { TINY_TOOLS }: typeof import("./tiny_tools.ts") = await load("./tiny_tools.ts");
  const durable: typeof import("../kv/mod.ts") | null = kvMode
    ? await load("../dist/kv/mod.js")
    : null;
  const { counting }: Partial<typeof import("./counting_kv.ts")> = kvMode
    ? await load("./counting_kv.ts")
    : {};
  const tools = TINY_TOOLS.map((t) => reins.defineTool(t));
  const imported = performance.now();
  const dir = kvMode ? await Deno.makeTempDir() : "";
  const raw = dir ? await Deno.openKv(`${dir}/runs.sqlite`) : null;
  const counted = raw && counting ? counting(raw) : null;
  try {
    const store = counted && durable ? new durable.KvRunStore(counted.kv) : undefined;
    return await planThenRunaway(
      imported,
      (model, maxTurns) =>
        reins.run(reins.newRun(TASK), {
          model: reins.createOpenAIModel({ baseUrl, model, apiKey: "none", stream }),
          tools,
          limits: { maxTurns, maxBudgetUsd: 1 },
          store,
          trace: store?.traceSink(),
        }),
      (done) => ({ status: done.status, commits: counted?.commits.n ?? 0 }),
    );
  } finally {
    raw?.close();
    if (dir) await Deno.remove(dir, { recursive: true });
  }
}

/** Issue 14's bare loop (bench/bare_loop.ts, streamed) with the demo's tools. */
async function demoBare(): Promise<Measured> {
  const { bareLoop }: typeof import("./bare_loop.ts") = await load("./bare_loop.ts");
  const { demoTools }: typeof import("../tools/catalog.ts") = await load("../tools/catalog.ts");
  const { createWorkspace }: typeof import("../tools/workspace.ts") = await load(
    "../tools/workspace.ts",
  );
  const { Recorder }: typeof import("./instrument.ts") = await load("./instrument.ts");
  const imported = performance.now();
  const ws = await createWorkspace();
  try {
    const tools = demoTools(ws);
    const loopback: typeof fetch = (_input, init) => fetch(`${baseUrl}/chat/completions`, init);
    return await planThenRunaway(
      imported,
      (scenario, turns) => bareLoop(loopback, scenario, TASK, tools, new Recorder(), turns, true),
    );
  } finally {
    await ws.remove();
  }
}

/** reins (mod.ts, streamed) with the demo's tools on a real workspace. */
async function demoReins(): Promise<Measured> {
  const reins: typeof import("../mod.ts") = await load("../dist/mod.js");
  const demo: typeof import("../demo/mod.ts") = await load("../dist/demo/mod.js");
  const imported = performance.now();
  const ws = await demo.createWorkspace();
  try {
    const tools = demo.demoTools(ws);
    return await planThenRunaway(
      imported,
      (model, maxTurns) =>
        reins.run(reins.newRun(TASK), {
          model: reins.createOpenAIModel({ baseUrl, model, apiKey: "none" }),
          tools,
          limits: { maxTurns, maxBudgetUsd: 1 },
        }),
      (done) => ({ status: done.status }),
    );
  } finally {
    await ws.remove();
  }
}

/** Imports `specifiers` (in order), then stops the clock. */
async function importOnly(...specifiers: string[]): Promise<Measured> {
  for (const specifier of specifiers) await load(specifier);
  return { imported: performance.now() };
}

const MODES: Record<string, () => Promise<Measured>> = {
  "empty": () => Promise.resolve({ imported: performance.now() }),
  "import-bare": () => importOnly("./tiny_loop.ts"),
  "import-mod": () => importOnly("../dist/mod.js", "./tiny_tools.ts"),
  "import-src": () => importOnly("../mod.ts", "./tiny_tools.ts"),
  "bare": () => tinyBare(false),
  "bare-stream": () => tinyBare(true),
  "reins": () => tinyReins(true, false),
  "reins-plain": () => tinyReins(false, false),
  "reins-kv": () => tinyReins(true, true),
  "reins-kv-plain": () => tinyReins(false, true),
  // What each demo mode imports: the loop and the demo's tools.
  "import-demo-bare": () =>
    importOnly("./bare_loop.ts", "../tools/catalog.ts", "../tools/workspace.ts"),
  "import-demo-mod": () => importOnly("../dist/mod.js", "../dist/demo/mod.js"),
  "bare-demo-stream": demoBare,
  "reins-demo": demoReins,
  "tok-js-tiktoken": async () => {
    const { Tiktoken }: typeof import("npm:js-tiktoken@1.0.21/lite") = await load(
      "npm:js-tiktoken@1.0.21/lite",
    );
    const { default: ranks } = await load("npm:js-tiktoken@1.0.21/ranks/o200k_base");
    const imported = performance.now();
    return { imported, extra: { tokens: new Tiktoken(ranks).encode(SAMPLE).length } };
  },
  "tok-gpt-tokenizer": async () => {
    const { countTokens }: typeof import("gpt-tokenizer/encoding/o200k_base") = await load(
      "gpt-tokenizer/encoding/o200k_base",
    );
    const imported = performance.now();
    return { imported, extra: { tokens: countTokens(SAMPLE) } };
  },
};

const measure = MODES[mode];
if (!measure) throw new TypeError(`fresh_child: unknown mode "${mode}"`);
const m = await measure();
const doneMs = performance.now();
console.log(JSON.stringify({
  mode,
  importedMs: m.imported,
  planMs: m.planMs ?? 0,
  steadyMs: m.steadyMs ?? 0,
  doneMs,
  ...m.extra,
}));
