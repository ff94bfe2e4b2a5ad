/**
 * One fresh process of the cold-path bench (bench/fresh.ts spawns it):
 * `deno run bench/fresh_child.ts <mode> [baseUrl]`. Every module it needs is
 * imported dynamically inside its mode, so a mode loads only its own graph.
 * Prints one JSON line: the ms from process start to the end of the imports
 * and to the end of the work (`performance.now()` counts from the start).
 *
 * Modes: `empty` (nothing), `import-bare` / `import-mod` (the bare loop's
 * modules / `mod.ts`, then exit), `bare` / `reins` / `reins-kv` (`plan`, 3
 * turns, against the OpenAI-compatible endpoint at `baseUrl`; reins with the
 * default soft budget, `reins-kv` also imports kv/mod.ts for a `KvRunStore` and its trace
 * sink on a temp SQLite file), `tok-js-tiktoken` / `tok-gpt-tokenizer` (build the
 * o200k encoder and count one string).
 *
 * @module
 */
const [mode, baseUrl = ""] = Deno.args;
const TASK = "Which file mentions a timeout?";
const SAMPLE = "Which file mentions a timeout? errors.log: 2024-01-01 ERROR timeout after 30s";

let imported = 0;
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
  case "bare": {
    const { bareLoop } = await import("./bare_loop.ts");
    const { demoTools } = await import("../tools/catalog.ts");
    const { createWorkspace } = await import("../tools/workspace.ts");
    const { Recorder } = await import("./instrument.ts");
    imported = performance.now();
    const ws = await createWorkspace();
    try {
      const done = await bareLoop(loopback(baseUrl), "plan", TASK, demoTools(ws), new Recorder());
      extra = { turns: done.turns, output: done.output };
    } finally {
      await ws.remove();
    }
    break;
  }
  case "reins":
  case "reins-kv": {
    const reins = await import("../mod.ts");
    const durable = mode === "reins-kv" ? await import("../kv/mod.ts") : null;
    imported = performance.now();
    const ws = await reins.createWorkspace();
    const dir = mode === "reins-kv" ? await Deno.makeTempDir() : "";
    const raw = dir ? await Deno.openKv(`${dir}/runs.sqlite`) : null;
    const kv = raw ? countCommits(raw) : null;
    try {
      const store = kv && durable ? new durable.KvRunStore(kv) : undefined;
      const done = await reins.run(reins.newRun(TASK), {
        model: reins.createOpenAIModel({ baseUrl, model: "plan", apiKey: "none" }),
        tools: reins.demoTools(ws),
        limits: { maxTurns: 10, maxBudgetUsd: 1 },
        store,
        trace: store?.traceSink(),
      });
      extra = { turns: done.turns, output: done.output, status: done.status, commits };
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
console.log(JSON.stringify({ mode, importedMs: imported, doneMs: performance.now(), ...extra }));
