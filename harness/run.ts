/**
 * The loop: run what is pending, else ask the model; stop on any limit or
 * condition, recording why as data. Resume and approval are the same path.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolCall, Usage } from "./messages.ts";
import type { RunOptions } from "./run_options.ts";
import { pending, RESUMABLE_STATUSES, type RunState } from "./state.ts";
import { RunStateError } from "./errors.ts";
import { checkLimits, firstStop, isBudgetSpent, isStepCount, type StopVerdict } from "./limits.ts";
import { computeCost, pricesFor } from "./cost.ts";
import type { TraceEvent } from "./trace.ts";
import { cancelled, type RunContext, type Stop } from "./run_context.ts";
import { countMessageTokens, countPromptTokens } from "./tokens.ts";
import { toolDefinitions } from "../tools/define_tool.ts";
import { runToolCalls } from "./tool_step.ts";
import type { ModelError } from "./errors.ts";

/**
 * Runs (or continues) a run until it exits: `completed`, `failed`,
 * `max_turns_exceeded`, `budget_exceeded` or `interrupted`. Never throws for a
 * model or tool failure (those are exits); throws `RunStateError` when the run
 * cannot continue and `RunConflictError` when its store lost a race. The input
 * is not mutated; the returned state is new.
 *
 * @example
 * ```ts
 * import { newRun, run } from "../mod.ts";
 * const model = { name: "m", complete: async () => ({
 *   message: { role: "assistant" as const, content: "hi" },
 *   usage: { prompt_tokens: 10, completion_tokens: 2 }, finishReason: "stop" }) };
 * const done = await run(newRun("say hi"), { model });
 * console.log(done.status, done.output, done.costUsd); // completed hi 0.000044
 * ```
 */
export async function run(initial: RunState, options: RunOptions): Promise<RunState> {
  if (!options || typeof options.model?.complete !== "function") {
    throw new TypeError("run(state, options): options.model must be a Model");
  }
  if (!RESUMABLE_STATUSES.includes(initial.status)) {
    throw new RunStateError(initial.runId, initial.status, "resume");
  }
  const state: RunState = structuredClone(initial);
  state.limits = checkLimits({ ...state.limits, ...options.limits });
  state.model = options.model.name;
  const signal = options.signal ?? new AbortController().signal;
  let emitted: Promise<void> = Promise.resolve();
  // Set once `run_stopped` is emitted: a tool that ignored the Stop and still
  // reports progress must not add events after the run's last one.
  let ended = false;
  const ctx: RunContext = {
    state,
    options,
    signal,
    gate: options.budgetLink?.gate ?? { inFlight: 0, reservedUsd: 0 },
    emit: (e) => {
      const sink = options.trace;
      if (!sink || ended) return Promise.resolve();
      const event = { ...e, at: new Date().toISOString() } as TraceEvent;
      // Chained so async sinks (KV) keep events in emission order.
      emitted = emitted.then(() => sink(event));
      return emitted;
    },
    save: async () => {
      if (!options.store) return;
      state.updatedAt = new Date().toISOString();
      await options.store.save(state);
    },
    remainingUsd: () => {
      const own = state.limits.maxBudgetUsd - state.costUsd;
      return Math.min(own, options.budgetLink?.remainingUsd() ?? Infinity);
    },
    spend: async (usd, callId) => {
      state.costUsd += usd;
      if (callId !== null) {
        state.childCostUsd += usd;
        state.callSpend[callId] = (state.callSpend[callId] ?? 0) + usd;
      }
      await options.budgetLink?.spend(usd);
    },
  };
  // An approval interruption is resolved by the verdict already written into
  // state; every other interruption simply resumes.
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;

  const stop = await loop(ctx);
  state.status = stop.status;
  state.interruption = stop.interruption;
  state.stopReason = stop.reason;
  if (stop.error !== undefined) state.error = stop.error;
  state.updatedAt = new Date().toISOString();
  await ctx.save();
  const last = ctx.emit({
    type: "run_stopped",
    runId: state.runId,
    status: stop.status,
    reason: stop.reason,
    interruption: stop.interruption,
    turns: state.turns,
    costUsd: state.costUsd,
  });
  ended = true;
  await last;
  return state;
}

async function loop(ctx: RunContext): Promise<Stop> {
  const { state, options, signal } = ctx;
  const tools = new Map((options.tools ?? []).map((t) => [t.name, t]));
  const definitions = toolDefinitions(options.tools ?? []);
  const conditions = [
    isStepCount(state.limits.maxTurns),
    isBudgetSpent(state.limits.maxBudgetUsd),
    ...(options.stopWhen ?? []),
  ];
  const session = { lastFailure: null as string | null };
  const prompt = promptCounter(definitions);
  for (;;) {
    if (signal.aborted) return cancelled(signal);
    const calls = pending(state);
    if (calls.length) {
      const stopped = await runToolCalls(ctx, calls, tools, session);
      if (stopped) return stopped;
      continue;
    }
    const last = state.messages.at(-1);
    if (last?.role === "assistant") {
      // Nothing pending and the model spoke last: it answered.
      state.output = last.content ?? "";
      return { status: "completed", interruption: null, reason: "the model answered" };
    }
    const verdict = await firstStop(conditions, state) ?? ancestorsBroke(ctx);
    if (verdict) return fromVerdict(verdict);
    const stopped = await modelTurn(ctx, definitions, prompt);
    if (stopped) return stopped;
  }
}

function fromVerdict(v: StopVerdict): Stop {
  return { status: v.status, interruption: v.interruption ?? null, reason: v.reason };
}

function ancestorsBroke(ctx: RunContext): StopVerdict | null {
  const left = ctx.options.budgetLink?.remainingUsd() ?? Infinity;
  return left <= 0
    ? {
      status: "budget_exceeded",
      interruption: { type: "max_budget" },
      reason: "budget spent: the parent run's budget is used up",
    }
    : null;
}

/**
 * Counts the prompt incrementally: the transcript only grows within a run, so
 * each turn encodes just the messages added since the last count.
 */
function promptCounter(definitions: ReturnType<typeof toolDefinitions>) {
  let counted = 0;
  let tokens = countPromptTokens([], definitions);
  return (messages: readonly ChatMessage[]): number => {
    for (; counted < messages.length; counted++) tokens += countMessageTokens(messages[counted]);
    return tokens;
  };
}

/** The most reply tokens a call started beside another call of its tree may reserve. */
const MAX_RESERVED_TOKENS = 4096;

async function modelTurn(
  ctx: RunContext,
  definitions: ReturnType<typeof toolDefinitions>,
  promptTokens: (messages: readonly ChatMessage[]) => number,
): Promise<Stop | null> {
  const { state, options, signal } = ctx;
  const prices = pricesFor(options.prices ?? options.model.prices, options.model.name);
  let maxTokens: number | undefined;
  let reserved = 0;
  const gate = ctx.gate;
  // Hard mode always fits the call into what is left. Soft mode lets one call of
  // the tree overshoot: a call that starts while another is in flight must fit
  // what the tree has left after the others' reservations, so a tree overshoots
  // by one call. Reservations are against the tree's (ancestors') budget, and a
  // reserved reply is capped so one call cannot starve its siblings.
  if (options.budgetMode === "hard" || gate.inFlight > 0) {
    const own = ctx.remainingUsd();
    const tree = (options.budgetLink?.remainingUsd() ?? own) - gate.reservedUsd;
    const remaining = Math.min(own, tree);
    const promptUsd = computeCost({
      prompt_tokens: promptTokens(state.messages),
      completion_tokens: 0,
    }, prices);
    maxTokens = Math.floor(((remaining - promptUsd) * 1e6) / prices.outputPerMillion);
    const reserving = gate.inFlight > 0 || options.budgetLink !== undefined;
    if (reserving) maxTokens = Math.min(maxTokens, MAX_RESERVED_TOKENS);
    if (!(maxTokens >= 1)) {
      const why = options.budgetMode === "hard"
        ? "hard budget"
        : "the rest is reserved by calls in flight";
      return {
        status: "budget_exceeded",
        interruption: { type: "max_budget" },
        reason: `budget spent: the next prompt alone costs $${promptUsd.toFixed(6)} and $${
          Math.max(0, remaining).toFixed(6)
        } is left (${why}, not called)`,
      };
    }
    if (reserving) reserved = promptUsd + (maxTokens * prices.outputPerMillion) / 1e6;
  }
  gate.inFlight += 1;
  gate.reservedUsd += reserved;
  const started = performance.now();
  let reply;
  try {
    reply = await options.model.complete({
      messages: state.messages,
      tools: definitions,
      maxTokens,
    }, signal);
  } catch (e) {
    gate.inFlight -= 1;
    gate.reservedUsd -= reserved;
    if (signal.aborted) return cancelled(signal);
    const message = e instanceof Error ? e.message : String(e);
    const kind = (e as ModelError).kind;
    return {
      status: "failed",
      interruption: null,
      reason: `model call failed${kind ? ` (${kind})` : ""}: ${message}`,
      error: message,
    };
  }
  gate.inFlight -= 1;
  gate.reservedUsd -= reserved;
  const ms = performance.now() - started;
  const message = normalizeReply(reply.message, state);
  const usage: Usage = reply.usage;
  const turnCost = computeCost(usage, prices);
  state.turns += 1;
  state.usage.prompt_tokens += usage.prompt_tokens;
  state.usage.completion_tokens += usage.completion_tokens;
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
  // Committed before any of its tool calls run: a resume never asks (and pays) again.
  await ctx.save();
  if (
    reply.finishReason === "length" && !message.tool_calls?.length && options.budgetMode === "hard"
  ) {
    state.output = message.content ?? "";
    return {
      status: "budget_exceeded",
      interruption: { type: "max_budget" },
      reason: "budget spent: the reply was cut at the tokens the budget could buy (hard budget)",
    };
  }
  return null;
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
