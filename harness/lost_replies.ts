/**
 * Replies lost on the way: an attempt the provider took (it answered 200)
 * whose reply never arrived whole (a stream cut short, a connection dropped
 * mid-reply, a 2xx reply refused as malformed) may have been billed, as may
 * a call a crash left unfinished (see unfinished_call.ts). Each is counted as
 * spent, an estimate: the prompt as the provider reported it for that
 * attempt, else for the same request when a retry answered (else its last
 * reported prompt, else a local o200k count), and the reply tokens that had
 * arrived. The sum goes to `costUsd` (the budget sees it) and
 * to `estimatedUsd`, and a `spend_estimated` event (basis `lost_reply`) says
 * so, saved with the turn's checkpoint.
 *
 * @module
 */
import type { RunContext } from "./run_context.ts";
import type { LostReply, ModelReply } from "./model.ts";
import type { ToolDefinition } from "./messages.ts";
import { addUsd, computeCost, type Prices, pricesFor } from "./cost.ts";
import { countCompletionTokens, countPromptTokens, loadTokenizer, tokenCount } from "./tokens.ts";

/**
 * A call other than the run's model turn (a compaction's summary): its
 * model's prices, and its prompt as counted locally when the provider
 * reported none.
 */
export interface OtherCall {
  prices: Prices;
  promptTokens: number;
  /** What the call was, for the trace (`spend_estimated`'s `kind`). */
  kind: "compaction";
}

/** Counts the lost replies of one model call as spent (see the module doc). */
export async function countLostReplies(
  ctx: RunContext,
  lost: readonly LostReply[] | undefined,
  reportedPrompt: unknown,
  definitions: ToolDefinition[],
  other?: OtherCall,
): Promise<void> {
  if (!lost?.length) return;
  const { state, options } = ctx;
  let estimate = tokenCount(reportedPrompt) ??
    (other ? other.promptTokens : ctx.lastPromptTokens);
  const promptOf = async (reply: LostReply): Promise<number> => {
    const reported = tokenCount(reply.prompt_tokens);
    if (reported !== undefined) return reported;
    if (estimate === null) {
      await loadTokenizer();
      estimate = countPromptTokens(state.messages, definitions);
    }
    return estimate;
  };
  const prices = other?.prices ??
    pricesFor(options.prices ?? options.model.prices, options.model.name);
  for (const reply of lost) {
    const prompt = await promptOf(reply);
    const usd = computeCost(
      { prompt_tokens: prompt, completion_tokens: reply.completion_tokens },
      prices,
    );
    state.estimatedUsd = addUsd(state.estimatedUsd, usd);
    await ctx.spend(usd, null);
    await ctx.emit({
      type: "spend_estimated",
      runId: state.runId,
      turn: state.turns + 1,
      prompt_tokens: prompt,
      completion_tokens: reply.completion_tokens,
      basis: "lost_reply",
      ...(other ? { kind: other.kind } : {}),
      reason: reply.reason,
      usd,
      costUsd: state.costUsd,
    });
  }
}

/**
 * Counts a reply whose usage is invalid as spent: the provider answered, so
 * it may have billed it. An estimate, as for a lost reply: its reply tokens
 * counted locally, its prompt as reported if that count is valid. Returns
 * the reason the run gives.
 */
export async function countInvalidUsage(
  ctx: RunContext,
  reply: ModelReply,
  problem: string,
  definitions: ToolDefinition[],
  other?: OtherCall,
): Promise<string> {
  await loadTokenizer();
  const completion_tokens = countCompletionTokens(reply.message);
  const reason = `the model reported invalid usage (${problem})`;
  const prompt = (reply.usage as Partial<ModelReply["usage"]> | null)?.prompt_tokens;
  await countLostReplies(ctx, [{ completion_tokens, reason }], prompt, definitions, other);
  return reason;
}
