/**
 * Stop latency: `slow` calls `scan_archive` (about 3 s); 300 ms after
 * the tool starts the run's signal aborts; measured is the time from
 * `abort()` to the `run_stopped` trace event.
 *
 * @module
 */
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { median, progress } from "./instrument.ts";
import { TASK } from "./overhead.ts";

/** What {@link benchAbort} measured. */
export interface AbortResult {
  /** ms from abort() to run_stopped, per run. */
  ms: number[];
  median: number;
  /** ms the tool had run when the signal aborted (median). */
  abortedAfterMs: number;
}

/** Runs `slow` `runs` times, aborting each `afterMs` into the tool. */
export async function benchAbort(
  tools: readonly AnyTool[],
  options: { runs?: number; afterMs?: number } = {},
): Promise<AbortResult> {
  const runs = options.runs ?? 5;
  const afterMs = options.afterMs ?? 300;
  progress(`abort mid-tool: ${runs} runs of slow, abort ${afterMs} ms into scan_archive`);
  const model = scriptedModel("slow", { latencyMs: 0 });
  const out: number[] = [];
  const into: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ctrl = new AbortController();
    let abortedAt = 0;
    let stoppedAt = 0;
    let toolStarted = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sink = (e: TraceEvent) => {
      if (e.type === "tool_start" && e.toolName === "scan_archive") {
        toolStarted = performance.now();
        timer = setTimeout(() => {
          abortedAt = performance.now();
          ctrl.abort("bench: Stop pressed");
        }, afterMs);
      }
      if (e.type === "run_stopped") stoppedAt = performance.now();
    };
    try {
      const s = await run(newRun(TASK), {
        model,
        tools,
        signal: ctrl.signal,
        trace: sink,
      });
      if (s.status !== "interrupted" || s.interruption?.type !== "cancelled" || !abortedAt) {
        throw new Error(`abort bench: expected interrupted/cancelled, got ${s.status}`);
      }
    } finally {
      clearTimeout(timer);
    }
    out.push(stoppedAt - abortedAt);
    into.push(abortedAt - toolStarted);
  }
  return { ms: out, median: median(out), abortedAfterMs: median(into) };
}
