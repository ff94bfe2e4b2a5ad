/**
 * The cold path: fresh `deno run` processes (bench/fresh_child.ts), each
 * timed from spawn to exit by this process, with its peak RSS read by
 * `/usr/bin/time -f %M` (when installed). The children talk to the scripted
 * provider served on 127.0.0.1 from this process (it reports usage, so a
 * soft-budget run needs no local token count). Modes run round-robin so the
 * machine's drift hits all alike; figures are medians.
 *
 * Alone: `deno run -A bench/fresh.ts [runs] [mode,...]` prints just these
 * figures (of those modes).
 *
 * @module
 */
import { createScriptedProvider } from "../testing/scripted_provider.ts";
import { median, progress } from "./instrument.ts";

/**
 * The fresh-process modes (see bench/fresh_child.ts): issue 29's setup (the
 * two tiny tools; the truly bare loop against reins, plain and streamed,
 * in memory and on KV), then issue 14's (the demo's tools on a workspace).
 */
export const FRESH_MODES = [
  "empty",
  "import-bare",
  "import-mod",
  "import-src",
  "bare",
  "bare-stream",
  "reins",
  "reins-plain",
  "reins-kv",
  "reins-kv-plain",
  "import-demo-bare",
  "import-demo-mod",
  "bare-demo-stream",
  "reins-demo",
  "tok-js-tiktoken",
  "tok-gpt-tokenizer",
] as const;

/** One mode of the fresh-process bench. */
export type FreshMode = typeof FRESH_MODES[number];

/** Medians of one mode. */
export interface FreshFigures {
  /** Spawn to exit, ms. */
  wallMs: number;
  /** Peak resident set, bytes (NaN without /usr/bin/time). */
  rssBytes: number;
  /** Process start to the end of its imports, ms (the child's own clock). */
  importedMs: number;
  /** Process start to the end of `plan` (the child's clock; NaN where no plan ran). */
  planMs: number;
  /** ms per turn of the 50-turn runaway after `plan` (NaN where none ran). */
  steadyMs: number;
  /** KV commits `plan` made (reins-kv; 0 without a store; NaN for the rest), leases included. */
  commits: number;
}

/** What {@link benchFresh} measured. */
export interface FreshResult {
  modes: Record<FreshMode, FreshFigures>;
  runs: number;
  /** Whether RSS was measured. */
  rssKnown: boolean;
}

const TIME = "/usr/bin/time";
const CHILD = new URL("./fresh_child.ts", import.meta.url).pathname;
// The child loads js-tiktoken, a package only tests and benchmarks use: its lock file.
const DEV_LOCK = `--lock=${new URL("../deno.dev.lock", import.meta.url).pathname}`;

async function hasTime(): Promise<boolean> {
  try {
    return (await Deno.stat(TIME)).isFile;
  } catch {
    return false;
  }
}

/**
 * A DENO_DIR of this bench's own, its npm cache the real one (linked), so the
 * children's V8 code cache is written by the warm-up round. An entry an
 * earlier process wrote under other V8 flags (any `--v8-flags` run, a
 * profile) is rejected and not written again: every child would compile zod
 * and reins anew, 10-25 ms more of V8's own time per process, measured here,
 * varying with what ran on the machine before, not with the code.
 */
async function ownDenoDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const { npmCache } = JSON.parse(new TextDecoder().decode(info.stdout));
  const path = await Deno.makeTempDir({ prefix: "reins-bench-deno-dir-" });
  await Deno.symlink(npmCache, `${path}/npm`);
  // The link goes, not what it points to.
  return { path, remove: () => Deno.remove(path, { recursive: true }) };
}

async function spawnOnce(
  mode: FreshMode,
  baseUrl: string,
  withTime: boolean,
  denoDir: string,
): Promise<FreshFigures> {
  const rssFile = withTime ? await Deno.makeTempFile() : "";
  const deno = [
    Deno.execPath(),
    "run",
    "--frozen",
    DEV_LOCK,
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    CHILD,
    mode,
    baseUrl,
  ];
  const [cmd, ...args] = withTime ? [TIME, "-f", "%M", "-o", rssFile, ...deno] : deno;
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, {
    args,
    env: { DENO_DIR: denoDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wallMs = performance.now() - t0;
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    if (rssFile) await Deno.remove(rssFile);
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
    throw new Error(`fresh ${mode}: exit ${out.code}: ${err}`);
  }
  let rssBytes = NaN;
  if (rssFile) {
    rssBytes = Number((await Deno.readTextFile(rssFile)).trim().split("\n").at(-1)) * 1024;
    await Deno.remove(rssFile);
  }
  const line = JSON.parse(text.split("\n").at(-1)!);
  const ran = /^(bare|reins)/.test(mode);
  if (ran && line.turns !== 3) {
    throw new Error(`fresh ${mode}: expected plan to take 3 turns, got ${text}`);
  }
  return {
    wallMs,
    rssBytes,
    importedMs: line.importedMs,
    planMs: ran ? line.planMs : NaN,
    steadyMs: ran ? line.steadyMs : NaN,
    commits: line.commits ?? NaN,
  };
}

/**
 * Spawns every mode `runs` times (after one discarded warm-up round that
 * fills the module and code caches of a DENO_DIR of its own, see
 * {@link ownDenoDir}) and returns the medians.
 */
export async function benchFresh(
  options: { runs?: number; modes?: readonly FreshMode[] } = {},
): Promise<FreshResult> {
  const runs = options.runs ?? 10;
  const modes = options.modes ?? FRESH_MODES;
  const withTime = await hasTime();
  const provider = createScriptedProvider({ latencyMs: 0 });
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    provider.fetch,
  );
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  const samples = new Map<FreshMode, FreshFigures[]>(modes.map((m) => [m, []]));
  const denoDir = await ownDenoDir();
  try {
    progress(`fresh processes: ${modes.length} modes x ${runs} runs (+1 warm-up round)`);
    for (let i = -1; i < runs; i++) {
      for (const mode of modes) {
        const s = await spawnOnce(mode, baseUrl, withTime, denoDir.path);
        if (i >= 0) samples.get(mode)!.push(s);
      }
    }
  } finally {
    ac.abort();
    await server.finished;
    await denoDir.remove();
  }
  const out = {} as Record<FreshMode, FreshFigures>;
  for (const [mode, list] of samples) {
    out[mode] = {
      wallMs: median(list.map((s) => s.wallMs)),
      rssBytes: median(list.map((s) => s.rssBytes)),
      importedMs: median(list.map((s) => s.importedMs)),
      planMs: median(list.map((s) => s.planMs)),
      steadyMs: median(list.map((s) => s.steadyMs)),
      commits: median(list.map((s) => s.commits)),
    };
  }
  return { modes: out, runs, rssKnown: withTime };
}

if (import.meta.main) {
  // `deno run -A bench/fresh.ts [runs] [mode,mode...]`: all modes by default.
  const runs = Number(Deno.args[0] ?? 10);
  const only = Deno.args[1]?.split(",") as FreshMode[] | undefined;
  const unknown = only?.filter((m) => !FRESH_MODES.includes(m));
  if (unknown?.length) throw new TypeError(`fresh: unknown modes ${unknown.join(", ")}`);
  const r = await benchFresh({ runs, modes: only });
  console.log(`fresh processes, median of ${r.runs} (rss ${r.rssKnown ? "measured" : "unknown"})`);
  console.log("mode                 wall ms   imported ms   plan ms   ms/turn   peak RSS MB");
  const n = (v: number, w: number, d = 1) => v.toFixed(d).padStart(w);
  for (const [mode, f] of Object.entries(r.modes)) {
    console.log(
      `${mode.padEnd(20)} ${n(f.wallMs, 7)}   ${n(f.importedMs, 11)}   ${n(f.planMs, 7)}   ${
        n(f.steadyMs, 7, 2)
      }   ${n(f.rssBytes / 1e6, 11)}`,
    );
  }
}
