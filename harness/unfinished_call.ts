/**
 * The model call a crash left unfinished. A call is recorded in the run's
 * state (`modelCall`) by the save before it is sent and cleared by the save of
 * its reply; a run resumed with the marker set cannot know whether the
 * provider received (and billed) that call, so it counts the call's prompt
 * as spent: the provider's last reported prompt tokens for the run (the new
 * prompt is at least that long), or a local o200k count when none is known.
 * The sum goes to `costUsd` (the budget sees it) and to `estimatedUsd`, and a
 * `spend_estimated` event says so in the trace.
 *
 * A compaction's summary call is marked the same way (`kind: "compaction"`,
 * its counted prompt as `promptTokens`): a resume counts it once, then
 * compacts again if the prompt is still over the trigger.
 *
 * The estimate, its event and the cleared marker are one checkpoint, saved at
 * once: a store that buffers the trace (KvRunStore) commits the event with the
 * state, so a crash keeps both or neither. An event stored without its state
 * would be counted again by the next resume (the marker still set), once in
 * the trace per resume but once in the stored cost.
 *
 * @module
 */
import type { RunContext } from "./run_context.ts";
import type { RunState } from "./state.ts";
import { pending } from "./state.ts";
import { addUsd, computeCost, pricesFor } from "./cost.ts";
import { countPromptTokens, loadTokenizer } from "./tokens.ts";
import { toolDefinitions } from "./tool.ts";
import { isoNow } from "./iso_now.ts";

/** Whether the next step of `state` is a model call (nothing pending, the model not last). */
export function nextIsModelCall(state: Readonly<RunState>): boolean {
  return state.status === "running" && pending(state).length === 0 &&
    state.messages.at(-1)?.role !== "assistant";
}

/**
 * Sets or clears the marker for the save about to be made: set while the
 * next step is a model call (kept if already set), cleared otherwise.
 */
export function markModelCall(state: RunState, lastPromptTokens: number | null): void {
  if (!nextIsModelCall(state)) state.modelCall = null;
  else {
    state.modelCall ??= {
      turn: state.turns + 1,
      since: isoNow(),
      promptTokens: lastPromptTokens,
    };
  }
}

/** Counts the unfinished call of a resumed run as spent and saves (see the module doc). */
export async function countUnfinishedCall(ctx: RunContext): Promise<void> {
  const { state, options } = ctx;
  const marker = state.modelCall;
  if (!marker) return;
  state.modelCall = null;
  let tokens = marker.promptTokens;
  const basis = tokens === null ? "local_count" : "last_reported_prompt";
  if (tokens === null) {
    await loadTokenizer();
    // The prompt as it would be sent: compacted, once the run has compacted.
    tokens = countPromptTokens(ctx.window.messages(state), toolDefinitions(options.tools ?? []));
  }
  // A compaction's summary call is priced as its model's (the policy's summaryModel).
  const model = marker.kind === "compaction"
    ? options.context?.summaryModel ?? options.model
    : options.model;
  const usd = computeCost(
    { prompt_tokens: tokens, completion_tokens: 0 },
    pricesFor(options.prices ?? model.prices, model.name),
  );
  state.estimatedUsd = addUsd(state.estimatedUsd, usd);
  await ctx.spend(usd, null);
  await ctx.emit({
    type: "spend_estimated",
    runId: state.runId,
    turn: marker.turn,
    prompt_tokens: tokens,
    basis,
    ...(marker.kind ? { kind: marker.kind } : {}),
    usd,
    costUsd: state.costUsd,
  });
  await ctx.save();
}
