/**
 * The prompt of one `run()` call: the transcript, or its compacted view once
 * the run has compacted (`state.context`, applied on resume and in forks even
 * without a policy), and the hook that compacts before a turn when a context
 * policy is on.
 *
 * @module
 */
import type { ChatMessage, ToolDefinition } from "./messages.ts";
import type { RunState } from "./state.ts";
import type { CompactionVerdict, ContextWindow, RunContext } from "./run_context.ts";
import type { ContextPolicy, ResolvedContextPolicy } from "./context_policy.ts";
import type { Model } from "./model.ts";
import type { Prices, PriceTable } from "./cost.ts";
import { resolveContextPolicy } from "./context_policy.ts";
import { type ContextState, contextView } from "./context_view.ts";
import { isContextLengthError } from "./context_errors.ts";
import { countPromptTokens, loadTokenizer } from "./tokens.ts";
import { compact } from "./compaction.ts";

export type { ContextWindow };

/** What {@link contextWindow} reads of the run's options. */
export interface ContextWindowOptions {
  /** The policy, if compaction is on. */
  context?: ContextPolicy | undefined;
  /** The run's model. */
  model: Model;
  /** The run's prices. */
  prices?: Prices | PriceTable | undefined;
}

/**
 * The prompt of a `run()` call with these options. The compacted view is
 * kept between calls and grows with the transcript; a new compaction makes a
 * new one (so prompt counters count it afresh).
 *
 * @example
 * ```ts
 * import { contextWindow } from "./context_window.ts";
 * import { newRun } from "./state.ts";
 * const model = { name: "m", complete: () => Promise.reject(new Error("unused")) };
 * const s = newRun("hi");
 * console.log(contextWindow({ model }).messages(s) === s.messages); // true
 * ```
 */
export function contextWindow(options: ContextWindowOptions): ContextWindow {
  const policyOrNull = options.context
    ? resolveContextPolicy(options.context, options.model, options.prices)
    : null;
  let view: ChatMessage[] = [];
  let viewOf: ContextState | undefined;
  let synced = 0;
  let forced = false;
  let retriedAt = -1;
  const messages = (state: RunState): ChatMessage[] => {
    const context = state.context;
    if (!context) return state.messages;
    if (viewOf !== context || synced > state.messages.length) {
      [view, viewOf, synced] = [
        contextView(state.messages, context),
        context,
        state.messages.length,
      ];
    }
    for (; synced < state.messages.length; synced++) view.push(state.messages[synced]!);
    return view;
  };
  const compactBefore = async (
    policy: ResolvedContextPolicy,
    ctx: RunContext,
    definitions: readonly ToolDefinition[],
  ): Promise<CompactionVerdict> => {
    await loadTokenizer();
    const { state } = ctx;
    const reason = forced ? "context_length" : "trigger";
    forced = false;
    const ratio = Math.max(1, state.promptRatio ?? 1);
    const tokens = countPromptTokens(messages(state), definitions);
    if (reason === "trigger" && Math.ceil(tokens * ratio) <= policy.triggerTokens) return null;
    const count = (c: ContextState) =>
      countPromptTokens(contextView(state.messages, c), definitions);
    const verdict = await compact({ ctx, policy, reason, before: tokens, count });
    // After a wait the loop comes back here: a prompt the provider refused still needs it.
    if (verdict === "waited" && reason === "context_length") forced = true;
    return verdict;
  };
  return {
    messages,
    // Asked before every model call: without a policy, no promise to wait for.
    beforeTurn: (ctx, definitions) =>
      policyOrNull ? compactBefore(policyOrNull, ctx, definitions) : null,
    retriesAfter(state, error) {
      if (!policyOrNull || !isContextLengthError(error) || retriedAt === state.turns) return false;
      retriedAt = state.turns;
      forced = true;
      return true;
    },
  };
}
