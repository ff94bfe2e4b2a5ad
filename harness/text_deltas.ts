/**
 * The `onText` of a run's model call: each piece of streamed text becomes a
 * `text_delta` trace event of the run, without making the stream wait for
 * the trace; a retried call's reset becomes a `text_delta` with `reset: true`.
 *
 * @module
 */
import type { RunContext } from "./run_context.ts";

/**
 * Emits a `text_delta` event for each piece of the reply the model streams.
 * Not awaited: a slow sink delays the events, never the model; a failing sink
 * fails the run at its next awaited event, as it would without streaming.
 * Internal: `modelTurn` passes it to the model.
 */
export function textDeltas(ctx: RunContext): ((delta: string) => void) | undefined {
  if (!ctx.options.trace) return undefined;
  const turn = ctx.state.turns + 1;
  return (delta) => {
    if (ctx.signal.aborted) return; // a Stop ends the deltas with it
    ctx.emit({ type: "text_delta", runId: ctx.state.runId, delta, turn }).catch(() => {});
  };
}

/**
 * The `onReset` of a run's model call: an empty `text_delta` with
 * `reset: true`, so watchers drop the text of the abandoned attempt.
 * Internal: `modelTurn` passes it to the model.
 */
export function textReset(ctx: RunContext): (() => void) | undefined {
  if (!ctx.options.trace) return undefined;
  const turn = ctx.state.turns + 1;
  return () => {
    if (ctx.signal.aborted) return;
    const event = {
      type: "text_delta",
      runId: ctx.state.runId,
      delta: "",
      turn,
      reset: true,
    } as const;
    ctx.emit(event).catch(() => {});
  };
}
