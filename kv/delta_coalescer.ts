/**
 * Bounded writes for streamed text: `text_delta` events of a run are joined
 * and written at most once per interval (the first at once), so a streamed
 * reply costs a few KV writes a second, not one per token. Any other event of
 * the run first writes what is buffered, so the stored trace keeps its order
 * and nothing of a run is written after its `run_stopped`. A reset (a retried
 * call voids the text streamed so far) drops what is buffered and is written
 * itself, joined with the deltas after it.
 *
 * @module
 */
import type { TextDeltaEvent, TraceEvent, TraceSink } from "../harness/trace.ts";

/** Default interval between two writes of one run's deltas, in ms (at most 4 a second). */
export const DELTA_INTERVAL_MS = 250;

interface Pending {
  /** The first buffered delta (its `at` and `turn` stand for the joined one). */
  first: TextDeltaEvent | null;
  text: string;
  timer: ReturnType<typeof setTimeout> | undefined;
  lastWrite: number;
}

/**
 * Wraps `sink` so `text_delta` events are coalesced per run. Deltas are not
 * awaited by the caller (a failed write of one is dropped: they are for
 * watching); every other event is passed on as before, after the run's
 * buffered deltas.
 *
 * @example
 * ```ts
 * import { coalesceDeltas } from "./delta_coalescer.ts";
 * import { memorySink } from "../harness/trace.ts";
 * const { sink, events } = memorySink();
 * const coalesced = coalesceDeltas(sink, 1000);
 * for (const delta of ["a", "b", "c"]) {
 *   await coalesced({ type: "text_delta", runId: "r", at: "", delta });
 * }
 * await coalesced({ type: "tool_start", runId: "r", at: "", toolName: "t", callId: "c", args: "{}" });
 * console.log(events.map((e) => e.type === "text_delta" ? e.delta : e.type)); // ["a", "bc", "tool_start"]
 * ```
 */
export function coalesceDeltas(sink: TraceSink, intervalMs = DELTA_INTERVAL_MS): TraceSink {
  if (!Number.isFinite(intervalMs) || intervalMs < 0) {
    throw new RangeError(`coalesceDeltas: intervalMs must be >= 0, got ${intervalMs}`);
  }
  const runs = new Map<string, Pending>();

  const flush = (p: Pending): Promise<void> => {
    clearTimeout(p.timer);
    p.timer = undefined;
    if (!p.first) return Promise.resolve();
    const event: TextDeltaEvent = { ...p.first, delta: p.text };
    p.first = null;
    p.text = "";
    p.lastWrite = performance.now();
    try {
      return Promise.resolve(sink(event)).catch(() => {});
    } catch {
      return Promise.resolve();
    }
  };

  return async (event: TraceEvent) => {
    const id = event.runId;
    if (event.type !== "text_delta") {
      const p = runs.get(id);
      if (p) {
        if (event.type === "run_stopped" || event.type === "run_handed_over") runs.delete(id);
        await flush(p);
      }
      return sink(event);
    }
    let p = runs.get(id);
    if (!p) runs.set(id, p = { first: null, text: "", timer: undefined, lastWrite: -Infinity });
    if (p.first && p.first.turn !== event.turn) void flush(p);
    if (event.reset) {
      // What is buffered is void; the reset must still reach the watchers.
      p.first = event;
      p.text = "";
    }
    p.first ??= event;
    p.text += event.delta;
    const wait = p.lastWrite + intervalMs - performance.now();
    if (wait <= 0) return void flush(p);
    if (p.timer === undefined) {
      const pending = p;
      p.timer = setTimeout(() => void flush(pending), wait);
    }
  };
}
