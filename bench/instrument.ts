/**
 * Timing instruments shared by the benchmarks: a recorder of model and tool
 * spans, wrappers that feed it, and the per-turn split of a run's wall time
 * into model, tools and "own" (everything else: the loop itself).
 *
 * A turn k spans from the start of model call k to the start of call k+1
 * (for the last turn: to the moment the run returned). Its own time is that
 * wall time minus the model call and minus the tools that started inside it.
 * The model span covers the whole `complete()` (request JSON, the in-process
 * provider, its token counting, reply parsing), so none of the provider's
 * work is charged to the loop.
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";

/** A [start, end] pair of `performance.now()` readings. */
export type Span = [number, number];

/** Collects the spans of one run; `reset()` between runs. */
export class Recorder {
  model: Span[] = [];
  tools: Span[] = [];
  /** Time inside the provider's `fetch` (a part of each model span), when recorded. */
  provider: Span[] = [];
  start = 0;
  end = 0;

  /** Clears the spans and marks the run's start. */
  reset(): void {
    this.model = [];
    this.tools = [];
    this.provider = [];
    this.start = performance.now();
    this.end = this.start;
  }

  /** Marks the run's end. */
  stop(): void {
    this.end = performance.now();
  }
}

/** A model whose every `complete()` is recorded as a model span. */
export function timedModel(inner: Model, rec: Recorder): Model {
  return {
    name: inner.name,
    async complete(request, signal) {
      const t0 = performance.now();
      try {
        return await inner.complete(request, signal);
      } finally {
        rec.model.push([t0, performance.now()]);
      }
    },
  };
}

/** A `fetch` whose every call is recorded as a provider span. */
export function timedFetch(inner: typeof fetch, rec: Recorder): typeof fetch {
  return async (input, init) => {
    const t0 = performance.now();
    try {
      return await inner(input, init);
    } finally {
      rec.provider.push([t0, performance.now()]);
    }
  };
}

/** The same tools, each `run()` recorded as a tool span. */
export function timedTools(tools: readonly AnyTool[], rec: Recorder): AnyTool[] {
  return tools.map((tool) => ({
    ...tool,
    async run(args: unknown, ctx: Parameters<AnyTool["run"]>[1]) {
      const t0 = performance.now();
      try {
        return await tool.run(args, ctx);
      } finally {
        rec.tools.push([t0, performance.now()]);
      }
    },
  }));
}

/** One turn's wall time and its parts, in ms. */
export interface TurnTiming {
  wall: number;
  /** The whole model call: client and provider. */
  model: number;
  /** The provider's part of the model call (0 when not recorded). */
  provider: number;
  tools: number;
  own: number;
}

/** Splits a recorded run into turns (see the module doc). */
export function perTurn(rec: Recorder): TurnTiming[] {
  const out: TurnTiming[] = [];
  for (let k = 0; k < rec.model.length; k++) {
    const from = rec.model[k][0];
    const to = k + 1 < rec.model.length ? rec.model[k + 1][0] : rec.end;
    const model = rec.model[k][1] - rec.model[k][0];
    const tools = unionLength(rec.tools.filter(([s]) => s >= from && s < to));
    const provider = unionLength(rec.provider.filter(([s]) => s >= from && s < to));
    const wall = to - from;
    out.push({ wall, model, provider, tools, own: wall - model - tools });
  }
  return out;
}

/** Whole-run totals: wall from start to end, own = wall - all model - all tools. */
export function totals(rec: Recorder): TurnTiming & { turns: number } {
  const wall = rec.end - rec.start;
  const model = rec.model.reduce((n, [s, e]) => n + e - s, 0);
  const tools = unionLength(rec.tools);
  const provider = unionLength(rec.provider);
  return { wall, model, provider, tools, own: wall - model - tools, turns: rec.model.length };
}

/** Total length covered by spans that may overlap (parallel read-only tools). */
function unionLength(spans: Span[]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cur: Span | null = null;
  for (const [s, e] of sorted) {
    if (!cur || s > cur[1]) {
      if (cur) total += cur[1] - cur[0];
      cur = [s, e];
    } else cur[1] = Math.max(cur[1], e);
  }
  if (cur) total += cur[1] - cur[0];
  return total;
}

/** The median (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The mean. */
export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** Mean own time of turns `from..to` (1-based, inclusive). */
export function ownMean(turns: readonly TurnTiming[], from: number, to: number): number {
  return mean(turns.slice(from - 1, to).map((t) => t.own));
}

/** Writes a progress line to stderr (stdout stays the table). */
export function progress(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`bench: ${line}\n`));
}
