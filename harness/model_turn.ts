/**
 * One model turn: plan the call against the budget, call the model with the
 * reservation held, then bill and commit the reply before any of its tool
 * calls run.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolCall, ToolDefinition } from "./messages.ts";
import type { ModelReply } from "./model.ts";
import type { ModelError } from "./errors.ts";
import type { RunState } from "./state.ts";
import type { RunContext } from "./run_context.ts";
import { computeCost, type Prices, pricesFor } from "./cost.ts";
import { countMessageTokens, countPromptTokens, loadTokenizer, tokenizerLoaded } from "./tokens.ts";
import { type CallPlan, planCall, withReservation } from "./budget_gate.ts";
import { type Exit, exit } from "./exit.ts";

/** Counts the tokens of the prompt a transcript makes (see {@link promptCounter}). */
export type PromptCounter = (messages: readonly ChatMessage[]) => number;

/**
 * Counts the prompt incrementally: the transcript only grows within a run, so
 * each turn encodes just the messages added since the last count. Nothing is
 * counted (and no encoder built) until the first call.
 */
export function promptCounter(definitions: readonly ToolDefinition[]): PromptCounter {
  let counted = 0;
  let tokens = -1;
  return (messages: readonly ChatMessage[]): number => {
    if (tokens < 0) tokens = countPromptTokens([], definitions);
    for (; counted < messages.length; counted++) tokens += countMessageTokens(messages[counted]);
    return tokens;
  };
}

/** Asks the model once; returns the Exit when the turn ends the run. */
export async function modelTurn(
  ctx: RunContext,
  definitions: ToolDefinition[],
  promptTokens: PromptCounter,
): Promise<Exit | null> {
  const prices = pricesFor(ctx.options.prices, ctx.options.model.name);
  // The gate counts the prompt locally only in hard mode or beside calls in flight:
  // only then is the encoder loaded (re-checked after the await, planTurn is synchronous).
  while (needsLocalCount(ctx) && !tokenizerLoaded()) await loadTokenizer();
  const plan = planTurn(ctx, prices, promptTokens);
  if (plan.type === "refused") return exit.budget(plan.reason);
  // Recorded before it is sent; usually the previous save already carried it.
  if (ctx.options.store && !ctx.state.modelCall) await ctx.save();
  const called = await callModel(ctx, definitions, plan);
  if ("status" in called) return called;
  const message = await commitTurn(ctx, called.reply, called.ms, prices);
  return cutByHardBudget(ctx, called.reply, message);
}

function needsLocalCount(ctx: RunContext): boolean {
  return ctx.options.budgetMode === "hard" || ctx.gate.inFlight > 0;
}

/** The budget's verdict on the next call: its reply cap and reservation, or a refusal. */
function planTurn(ctx: RunContext, prices: Prices, promptTokens: PromptCounter): CallPlan {
  const { state, options } = ctx;
  return planCall({
    gate: ctx.gate,
    hard: options.budgetMode === "hard",
    ownUsd: () => ctx.remainingUsd(),
    ancestorsUsd: () => options.budgetLink?.remainingUsd(),
    promptUsd: () =>
      computeCost({ prompt_tokens: promptTokens(state.messages), completion_tokens: 0 }, prices),
    outputPerMillion: prices.outputPerMillion,
  });
}

/** Calls the model with the call's reservation held; a failure is the run's Exit. */
async function callModel(
  ctx: RunContext,
  definitions: ToolDefinition[],
  plan: Extract<CallPlan, { type: "call" }>,
): Promise<{ reply: ModelReply; ms: number } | Exit> {
  const { state, options, signal } = ctx;
  const started = performance.now();
  try {
    const reply = await withReservation(ctx.gate, plan.reservedUsd, () =>
      options.model.complete({
        messages: state.messages,
        tools: definitions,
        maxTokens: plan.maxTokens,
      }, signal));
    return { reply, ms: performance.now() - started };
  } catch (e) {
    if (signal.aborted) return exit.cancelled(signal);
    const message = e instanceof Error ? e.message : String(e);
    const kind = (e as ModelError).kind;
    return exit.failed(`model call failed${kind ? ` (${kind})` : ""}: ${message}`, message);
  }
}

/** Bills the reply, appends it, traces the turn and saves: a resume never asks (and pays) again. */
async function commitTurn(
  ctx: RunContext,
  reply: ModelReply,
  ms: number,
  prices: Prices,
): Promise<AssistantMessage> {
  const { state } = ctx;
  const message = normalizeReply(reply.message, state);
  const usage = reply.usage;
  const turnCost = computeCost(usage, prices);
  state.turns += 1;
  state.usage.prompt_tokens += usage.prompt_tokens;
  state.usage.completion_tokens += usage.completion_tokens;
  ctx.lastPromptTokens = usage.prompt_tokens;
  await ctx.spend(turnCost, null);
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
  // Committed before any of its tool calls run.
  await ctx.save();
  return message;
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
  ctx.state.output = message.content ?? "";
  return exit.budget(
    "budget spent: the reply was cut at the tokens the budget could buy (hard budget)",
  );
}

/**
 * Keeps only the fields the protocol defines, and gives every call of the
 * message a unique id (models do send missing and duplicate ids).
 */
function normalizeReply(m: AssistantMessage, state: RunState): AssistantMessage {
  const seen = new Set<string>();
  const calls: ToolCall[] = (m.tool_calls ?? []).map((c, i) => {
    let id = typeof c.id === "string" && c.id ? c.id : `call_${state.turns}_${i}`;
    // A renamed id may itself be taken (ids ["a_0_2", "a", "a"]): rename until unique.
    while (seen.has(id)) id = `${id}_${state.turns}_${i}`;
    seen.add(id);
    return {
      id,
      type: "function",
      function: {
        name: String(c.function?.name ?? ""),
        arguments: String(c.function?.arguments ?? ""),
      },
    };
  });
  return calls.length
    ? { role: "assistant", content: m.content ?? null, tool_calls: calls }
    : { role: "assistant", content: m.content ?? "" };
}
