/**
 * One model turn: plan the call against the budget, call the model with the
 * reservation held, then bill and commit the reply before any of its tool
 * calls run (a reply without calls is committed by the next save).
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolCall, ToolDefinition } from "./messages.ts";
import type { ModelReply } from "./model.ts";
import type { ModelError } from "./errors.ts";
import { messageOf } from "./message_of.ts";
import type { RunState } from "./state.ts";
import { promptEstimate } from "./prompt_estimate.ts";
import type { RunContext } from "./run_context.ts";
import { computeCost, type Prices, pricesFor, roundUsd } from "./cost.ts";
import {
  countMessageTokens,
  countPromptTokens,
  loadTokenizer,
  tokenCount,
  tokenizerLoaded,
} from "./tokens.ts";
import { type CallPlan, callSettled, mayFitLater, planCall, reserve } from "./budget_gate.ts";
import { type Exit, exit } from "./exit.ts";
import { textDeltas, textReset } from "./text_deltas.ts";
import { runUniqueIds } from "./call_ids.ts";
import { countInvalidUsage, countLostReplies } from "./lost_replies.ts";

/** Counts the tokens of the prompt a transcript makes (see {@link promptCounter}). */
export type PromptCounter = (messages: readonly ChatMessage[]) => number;

/**
 * Counts the prompt incrementally: a prompt array only grows, so each turn
 * encodes just the messages added since the last count; a different array (a
 * compacted prompt) is counted afresh. Nothing is counted (and no encoder
 * built) until the first call.
 */
export function promptCounter(definitions: readonly ToolDefinition[]): PromptCounter {
  let counted = 0;
  let tokens = -1;
  let seen: readonly ChatMessage[] | null = null;
  return (messages: readonly ChatMessage[]): number => {
    if (tokens < 0 || messages !== seen) {
      [tokens, counted] = [countPromptTokens([], definitions), 0];
    }
    seen = messages;
    for (; counted < messages.length; counted++) tokens += countMessageTokens(messages[counted]!);
    return tokens;
  };
}

/**
 * Asks the model once; returns the Exit when the turn ends the run, null when
 * the loop goes on (also after waiting for a sibling's call to settle).
 */
export async function modelTurn(
  ctx: RunContext,
  definitions: ToolDefinition[],
  promptTokens: PromptCounter,
): Promise<Exit | null> {
  const prices = pricesFor(ctx.options.prices ?? ctx.options.model.prices, ctx.options.model.name);
  const left = ctx.remainingUsd();
  const counted = { tokens: undefined as number | undefined };
  // The gate counts the prompt locally only in hard mode or beside calls in flight:
  // only then is the encoder loaded (re-checked after the await, planTurn is synchronous).
  while (needsLocalCount(ctx) && !tokenizerLoaded()) await loadTokenizer();
  const plan = planTurn(ctx, prices, promptTokens, counted);
  if (plan.type === "refused") {
    if (!mayFitLater(ctx.gate)) return exit.budget(plan.reason);
    // A sibling's call holds the rest in reserve: once it settles (and costs what it
    // cost), the loop checks the limits again and plans anew. Ending the run here
    // would make its exit depend on timing.
    await callSettled(ctx.gate, ctx.signal);
    return null;
  }
  // Reserved before the save, so a sibling that plans while it commits sees this call;
  // released once its cost is spent, so a sibling woken then plans with it counted.
  const release = reserve(ctx.gate, plan.reservedUsd);
  try {
    return await callAndCommit(ctx, definitions, plan, { counted, prices, left, release });
  } finally {
    release();
  }
}

/** What {@link callAndCommit} needs of its turn's plan. */
interface TurnCall {
  counted: { tokens: number | undefined };
  prices: Prices;
  /** USD left before the call (hard mode's overspend check). */
  left: number;
  /** Releases the call's reservation (after its cost is spent). */
  release: () => void;
}

/** The reserved call: sent, its reply counted and committed (or the exit it ends in). */
async function callAndCommit(
  ctx: RunContext,
  definitions: ToolDefinition[],
  plan: Extract<CallPlan, { type: "call" }>,
  { counted, prices, left, release }: TurnCall,
): Promise<Exit | null> {
  // Recorded before it is sent; usually the previous save already carried it.
  if (ctx.options.store && !ctx.state.modelCall) await ctx.save();
  const called = await callModel(ctx, definitions, plan);
  if (called === null || "status" in called) return called;
  // Most replies lost nothing on the way: no call (each async call costs, cold, a few µs a turn).
  if (called.reply.lost?.length) {
    await countLostReplies(ctx, called.reply.lost, called.reply.usage?.prompt_tokens, definitions);
  }
  learnPromptRatio(ctx.state, counted.tokens, called.reply.usage?.prompt_tokens);
  const badUsage = usageProblem(called.reply.usage);
  if (badUsage) {
    // The provider answered, so it may have billed the reply: counted, the run ends `failed`.
    const reason = await countInvalidUsage(ctx, called.reply, badUsage, definitions);
    return exit.failed(`${reason}; the reply is counted as an estimate`, badUsage);
  }
  const message = await commitTurn(ctx, called.reply, called.ms, prices, release);
  const over = ctx.options.budgetMode === "hard"
    ? await overspent(ctx, called.reply, plan.maxTokens, left, prices)
    : null;
  return over ?? cutByHardBudget(ctx, called.reply, message);
}

function needsLocalCount(ctx: RunContext): boolean {
  return ctx.options.budgetMode === "hard" || ctx.gate.inFlight > 0;
}

/**
 * The budget's verdict on the next call: its reply cap and reservation, or a
 * refusal. The prompt is counted locally and scaled by the ratio the provider
 * has shown (with a margin), since providers count prompts differently.
 */
function planTurn(
  ctx: RunContext,
  prices: Prices,
  promptTokens: PromptCounter,
  counted: { tokens: number | undefined },
): CallPlan {
  const { state, options } = ctx;
  return planCall({
    gate: ctx.gate,
    hard: options.budgetMode === "hard",
    ownUsd: () => ctx.remainingUsd(),
    ancestorsUsd: () => options.budgetLink?.remainingUsd(),
    promptUsd: () => {
      counted.tokens = promptTokens(ctx.window.messages(state));
      const estimate = promptEstimate(state, counted.tokens);
      return computeCost({ prompt_tokens: estimate, completion_tokens: 0 }, prices);
    },
    outputPerMillion: prices.outputPerMillion,
    maxOutputTokens: prices.maxOutputTokens,
    minReplyTokens: options.minReplyTokens,
  });
}

/** Keeps the highest ratio of the provider's prompt count to ours (kept in state: it survives resume). */
function learnPromptRatio(state: RunState, local: number | undefined, reported: unknown): void {
  if (!local || typeof reported !== "number" || !Number.isFinite(reported) || reported <= 0) return;
  const seen = Math.round((reported / local) * 1e4) / 1e4;
  if (seen > (state.promptRatio ?? 0)) state.promptRatio = seen;
}

/**
 * In hard mode (the caller checks), a reply that cost more than the budget had left (the
 * provider counted more than reins did, or ignored `max_tokens`) ends the run
 * `budget_exceeded` saying by how much, and is traced: a run never goes on,
 * or reports `completed`, over a hard budget.
 */
async function overspent(
  ctx: RunContext,
  reply: ModelReply,
  maxTokens: number | undefined,
  left: number,
  prices: Prices,
): Promise<Exit | null> {
  const { state } = ctx;
  const turnCost = computeCost(reply.usage, prices);
  const over = roundUsd(turnCost - left);
  if (!(over > 0)) return null;
  await ctx.emit({
    type: "budget_overspent",
    runId: state.runId,
    turnCostUsd: turnCost,
    leftUsd: roundUsd(left),
    overUsd: over,
    maxTokens: maxTokens ?? null,
    completion_tokens: reply.usage.completion_tokens,
  });
  const ignored = maxTokens !== undefined && reply.usage.completion_tokens > maxTokens
    ? `; it returned ${reply.usage.completion_tokens} reply tokens for max_tokens ${maxTokens}`
    : "";
  return exit.budget(
    `budget exceeded: the provider overspent the hard budget by $${over.toFixed(6)} ` +
      `(the reply cost $${turnCost.toFixed(6)} with $${roundUsd(left).toFixed(6)} left${ignored})`,
  );
}

/**
 * Calls the model (its caller holds the call's reservation); a failure is the
 * run's Exit, except a prompt over the window the context policy compacts (null).
 */
async function callModel(
  ctx: RunContext,
  definitions: ToolDefinition[],
  plan: Extract<CallPlan, { type: "call" }>,
): Promise<{ reply: ModelReply; ms: number } | Exit | null> {
  const { state, options, signal } = ctx;
  const started = performance.now();
  try {
    const reply = await options.model.complete({
      messages: ctx.window.messages(state),
      tools: definitions,
      maxTokens: plan.maxTokens,
      ...ctx.output?.mode === "json_schema" ? { output: ctx.output.format } : {},
      onText: textDeltas(ctx),
      onReset: textReset(ctx),
    }, signal);
    return { reply, ms: performance.now() - started };
  } catch (e) {
    if (signal.aborted) return exit.cancelled(signal);
    await countLostReplies(ctx, (e as Partial<ModelError>).lost, undefined, definitions);
    if (ctx.window.retriesAfter(state, e)) return null; // the loop compacts, then asks again
    const message = messageOf(e);
    const kind = (e as ModelError).kind;
    return exit.failed(`model call failed${kind ? ` (${kind})` : ""}: ${message}`, message);
  }
}

/**
 * Bills the reply, appends it, traces the turn and saves one that calls tools: a resume never
 * asks (and pays) again.
 */
async function commitTurn(
  ctx: RunContext,
  reply: ModelReply,
  ms: number,
  prices: Prices,
  spent: () => void,
): Promise<AssistantMessage> {
  const { state } = ctx;
  const message = normalizeReply(reply.message, state);
  const usage = reply.usage;
  const turnCost = computeCost(usage, prices);
  state.turns += 1;
  state.usage.prompt_tokens += usage.prompt_tokens;
  state.usage.completion_tokens += usage.completion_tokens;
  ctx.lastPromptTokens = usage.prompt_tokens;
  ctx.lastFinish = reply.finishReason;
  const told = ctx.spend(turnCost, null); // a root's spend is done at once: no tick for it
  if (told) await told;
  spent(); // the reservation gives way to the cost
  state.messages.push(message);
  // Traced before it is committed: a crash between the two leaves a billed reply
  // in the trace (the resume asks again), never a committed turn missing from it.
  await ctx.emit({
    type: "turn",
    runId: state.runId,
    turn: state.turns,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    turnCostUsd: turnCost,
    costUsd: state.costUsd,
    finish: reply.finishReason,
    ms,
  });
  // Committed before any of its tool calls run. A reply without calls waits for the
  // next save, one commit fewer: the exit's (it usually ends the run) or the one that
  // records the next call (a repair, a compaction). Until then the stored marker says
  // the call may have been billed, as during any commit.
  if (!message.tool_calls?.length) state.modelCall = null;
  else if (ctx.options.store) await ctx.save();
  return message;
}

/**
 * What is wrong with the usage a model reported, or null: counts must be
 * token counts (see `tokenCount`), else the cost (and the budget) means nothing.
 */
export function usageProblem(usage: unknown): string | null {
  if (typeof usage !== "object" || usage === null) return `usage is ${usage}`;
  for (const k of ["prompt_tokens", "completion_tokens"] as const) {
    const v = (usage as Record<string, unknown>)[k];
    if (tokenCount(v) === undefined) return `${k} is ${v}`;
  }
  return null;
}

/** In hard mode, a reply cut at the tokens the budget bought ends the run. */
function cutByHardBudget(
  ctx: RunContext,
  reply: ModelReply,
  message: AssistantMessage,
): Exit | null {
  if (
    reply.finishReason !== "length" || message.tool_calls?.length ||
    ctx.options.budgetMode !== "hard"
  ) return null;
  // A typed run's output is a value that passed its schema, never a cut text.
  if (!ctx.output) ctx.state.output = message.content ?? "";
  return exit.budget(
    "budget spent: the reply was cut at the tokens the budget could buy (hard budget)",
  );
}

/**
 * Keeps only the fields the protocol defines, and gives every call of the
 * message an id unique within the run (see {@link runUniqueIds}).
 */
function normalizeReply(m: AssistantMessage, state: RunState): AssistantMessage {
  const calls: ToolCall[] = runUniqueIds(m.tool_calls ?? [], state.messages, state.turns);
  return calls.length
    ? { role: "assistant", content: m.content ?? null, tool_calls: calls }
    : { role: "assistant", content: m.content ?? "" };
}
