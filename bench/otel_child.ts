/**
 * Child of bench/otel_bench.ts: reins's own time per turn on runaway (100
 * turns) without an observer and with `openTelemetry()`, alternating run by
 * run; prints `{ none, observed, runs }` (median µs per turn) as JSON. Run
 * with `OTEL_DENO=true` the observer records to Deno's own exporter.
 *
 * @module
 */
import type { RunObserver } from "../harness/run_options.ts";
import { openTelemetry } from "../otel/open_telemetry.ts";
import { demoTools } from "../tools/catalog.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { median, Recorder, totals } from "./instrument.ts";
import { scriptedModelTimed, timedReinsRun } from "./overhead.ts";

/**
 * Median own ms per turn without and with `observe`, alternating (2 warm-up
 * runs each), and the median of the paired ratios (run by run: drift of a
 * loaded machine hits both of a pair alike).
 */
export async function ownPerTurn(
  observe: RunObserver,
  runs: number,
): Promise<{ none: number; observed: number; ratio: number }> {
  const ws = await createWorkspace();
  try {
    const tools = demoTools(ws);
    const rec = new Recorder();
    const model = scriptedModelTimed("runaway", rec);
    const own = { none: [] as number[], observed: [] as number[] };
    for (let i = -2; i < runs; i++) {
      for (const key of ["none", "observed"] as const) {
        const s = await timedReinsRun(model, tools, 100, rec, {
          observe: key === "observed" ? observe : undefined,
        });
        if (s.turns !== 100) throw new Error(`otel bench: expected 100 turns, got ${s.turns}`);
        const t = totals(rec);
        if (i >= 0) own[key].push(t.own / t.turns);
      }
    }
    const ratios = own.none.map((n, i) => own.observed[i] / n);
    return { none: median(own.none), observed: median(own.observed), ratio: median(ratios) };
  } finally {
    await ws.remove();
  }
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? 9);
  console.log(JSON.stringify({ ...(await ownPerTurn(openTelemetry(), runs)), runs }));
}
