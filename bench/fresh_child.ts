/**
 * One fresh process of the cold-path bench (bench/fresh.ts spawns it):
 * `deno run bench/fresh_child.ts <mode> [baseUrl]`. Every module it needs is
 * imported dynamically inside its mode, so a mode loads only its own graph.
 * Prints one JSON line: the ms from process start to the end of the imports
 * and to the end of the work (`performance.now()` counts from the start).
 *
 * Modes: `empty` (nothing), `import-bare` / `import-mod` (the bare loop's
 * modules / `mod.ts`, then exit), `bare` / `reins` / `reins-kv` (`plan`, 3
 * turns, against the OpenAI-compatible endpoint at `baseUrl`, then a 50-turn
 * `runaway` for the steady ms per turn; reins with the default soft budget,
 * `reins-kv` also imports kv/mod.ts for a `KvRunStore` and its trace sink on a
 * temp SQLite file; streamed replies, or with `-plain` / the bare loop's
 * `bare-stream` the other mode), `tok-js-tiktoken` / `tok-gpt-tokenizer` (build
 * the o200k encoder and count one string).
 *
 * @module
 */
const [mode, baseUrl = ""] = Deno.args;
const TASK = "Which file mentions a timeout?";
const SAMPLE = "Which file mentions a timeout? errors.log: 2024-01-01 ERROR timeout after 30s";

let imported = 0;
/** Process start to the end of `plan`; ms per turn of the 50-turn runaway after it. */
let planMs = 0;
let steadyMs = 0;
const STEADY_TURNS = 50;
let extra: Record<string, unknown> = {};

let commits = 0;
/** A view of `kv` counting commits (atomics, bare sets and deletes). */
function countCommits(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      if (prop === "set" || prop === "delete") {
        return (...a: unknown[]) => (commits++, v.apply(target, a));
      }
      if (prop !== "atomic") return v.bind(target);
      return () => {
        const op = target.atomic();
        const view: Deno.AtomicOperation = new Proxy(op, {
          get(t, p) {
            const f = Reflect.get(t, p, t);
            if (typeof f !== "function") return f;
            return (...a: unknown[]) => {
              if (p === "commit") commits++;
              const r = f.apply(t, a);
              return r === t ? view : r;
            };
          },
        });
        return view;
      };
    },
  });
}

const loopback = (url: string): typeof fetch => (_input, init) =>
  fetch(`${url}/chat/completions`, init);

switch (mode) {
  case "empty":
    imported = performance.now();
    break;
  case "import-bare": {
    await import("./bare_loop.ts");
    await import("../tools/catalog.ts");
    await import("../tools/workspace.ts");
    imported = performance.now();
    break;
  }
  case "import-mod": {
    await import("../mod.ts");
    imported = performance.now();
    break;
  }
  case "bare":
  case "bare-stream": {
    const { bareLoop } = await import("./bare_loop.ts");
    const { demoTools } = await import("../tools/catalog.ts");
    const { createWorkspace } = await import("../tools/workspace.ts");
    const { Recorder } = await import("./instrument.ts");
    imported = performance.now();
    const ws = await createWorkspace();
    try {
      const stream = mode === "bare-stream";
      const tools = demoTools(ws);
      const go = (scenario: string, turns: number) =>
        bareLoop(loopback(baseUrl), scenario, TASK, tools, new Recorder(), turns, stream);
      const done = await go("plan", 20);
      planMs = performance.now();
      await go("runaway", STEADY_TURNS);
      steadyMs = (performance.now() - planMs) / STEADY_TURNS;
      extra = { turns: done.turns, output: done.output };
    } finally {
      await ws.remove();
    }
    break;
  }
  case "reins":
  case "reins-plain":
  case "reins-kv":
  case "reins-kv-plain": {
    const reins = await import("../mod.ts");
    const kvMode = mode.startsWith("reins-kv");
    const durable = kvMode ? await import("../kv/mod.ts") : null;
    imported = performance.now();
    const ws = await reins.createWorkspace();
    const dir = kvMode ? await Deno.makeTempDir() : "";
    const raw = dir ? await Deno.openKv(`${dir}/runs.sqlite`) : null;
    const kv = raw ? countCommits(raw) : null;
    try {
      const store = kv && durable ? new durable.KvRunStore(kv) : undefined;
      const stream = !mode.endsWith("-plain");
      const tools = reins.demoTools(ws);
      const go = (model: string, maxTurns: number) =>
        reins.run(reins.newRun(TASK), {
          model: reins.createOpenAIModel({ baseUrl, model, apiKey: "none", stream }),
          tools,
          limits: { maxTurns, maxBudgetUsd: 1 },
          store,
          trace: store?.traceSink(),
        });
      const done = await go("plan", 10);
      planMs = performance.now();
      const planCommits = commits;
      await go("runaway", STEADY_TURNS);
      steadyMs = (performance.now() - planMs) / STEADY_TURNS;
      extra = {
        turns: done.turns,
        output: done.output,
        status: done.status,
        commits: planCommits,
      };
    } finally {
      raw?.close();
      if (dir) await Deno.remove(dir, { recursive: true });
      await ws.remove();
    }
    break;
  }
  case "tok-js-tiktoken": {
    const { Tiktoken } = await import("npm:js-tiktoken@1.0.21/lite");
    const { default: ranks } = await import("npm:js-tiktoken@1.0.21/ranks/o200k_base");
    imported = performance.now();
    extra = { tokens: new Tiktoken(ranks).encode(SAMPLE).length };
    break;
  }
  case "tok-gpt-tokenizer": {
    const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
    imported = performance.now();
    extra = { tokens: countTokens(SAMPLE) };
    break;
  }
  default:
    throw new TypeError(`fresh_child: unknown mode "${mode}"`);
}
const doneMs = performance.now();
console.log(JSON.stringify({ mode, importedMs: imported, planMs, steadyMs, doneMs, ...extra }));
