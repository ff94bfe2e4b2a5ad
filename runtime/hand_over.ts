/**
 * The trace of a run handed over on eviction: the `run_stopped` its
 * interrupted execution emits becomes a `run_handed_over`, so a client that
 * ends its stream on `run_stopped` does not stop following a run that goes on
 * elsewhere, and the trace has one `run_stopped`: the final one.
 *
 * @module
 */
import type { RunStoppedEvent, TraceSink } from "../harness/trace.ts";

/** Options of {@link handOverTrace}. */
export interface HandOverOptions {
  /** Whether this `run_stopped` is a hand-over (decided once per event, before it is stored). */
  isHandOver(event: RunStoppedEvent): boolean | Promise<boolean>;
  /** The lease owner handing the run over. */
  by: string;
}

/**
 * `sink` with every `run_stopped` that `options.isHandOver` accepts replaced
 * by a `run_handed_over` (same run, time, turns and cost; the stop's reason).
 *
 * @example
 * ```ts
 * import { handOverTrace } from "./hand_over.ts";
 * import { memorySink } from "../harness/trace.ts";
 * const { sink, events } = memorySink();
 * const traced = handOverTrace(sink, { by: "w1", isHandOver: (e) => e.status === "interrupted" });
 * await traced({
 *   type: "run_stopped", runId: "r", at: "", status: "interrupted", reason: "evicted",
 *   interruption: { type: "cancelled", reason: "evicted" }, turns: 1, costUsd: 0,
 * });
 * console.log(events[0].type); // run_handed_over
 * ```
 */
export function handOverTrace(sink: TraceSink, options: HandOverOptions): TraceSink {
  return async (event) => {
    if (event.type !== "run_stopped" || !(await options.isHandOver(event))) return sink(event);
    const { runId, at, turns, costUsd, interruption: i } = event;
    const reason = i?.type === "cancelled" ? i.reason : event.reason;
    return sink({ type: "run_handed_over", runId, at, reason, by: options.by, turns, costUsd });
  };
}
