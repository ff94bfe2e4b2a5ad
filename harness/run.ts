/**
 * The loop: run what is pending, else ask the model; stop on any limit or
 * condition, recording why as data. Resume and approval are the same path.
 *
 * @module
 */
import type { RunOptions } from "./run_options.ts";
import { pending, RESUMABLE_STATUSES, type RunState } from "./state.ts";
import { RunStateError } from "./errors.ts";
import { checkLimits } from "./limits.ts";
import { addUsd, checkPrices, roundUsd } from "./cost.ts";
import { firstStop, isBudgetSpent, isStepCount } from "./stop_conditions.ts";
import type { RunContext } from "./run_context.ts";
import { type Exit, exit } from "./exit.ts";
import { toolDefinitions } from "./tool.ts";
import { runToolCalls } from "./tool_step.ts";
import { modelTurn, promptCounter } from "./model_turn.ts";
import { newBudgetGate } from "./budget_gate.ts";
import { childRunner } from "./child_run.ts";
import { countUnfinishedCall, markModelCall } from "./unfinished_call.ts";
import { eventChain, isoNow } from "./event_chain.ts";

/**
 * Runs (or continues) a run until it exits: `completed`, `failed`,
 * `max_turns_exceeded`, `budget_exceeded` or `interrupted`. Never throws for a
 * model or tool failure (those are exits); throws `RunStateError` when the run
 * cannot continue and `RunConflictError` when its store lost a race. The input
 * is not mutated; the returned state is new.
 *
 * @example
 * ```ts
 * import { newRun } from "./state.ts";
 * import { run } from "./run.ts";
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
  checkPrices(options.prices);
  checkPrices(options.model.prices, "model.prices");
  if (!RESUMABLE_STATUSES.includes(initial.status)) {
    throw new RunStateError(initial.runId, initial.status, "resume");
  }
  const state: RunState = structuredClone(initial);
  state.limits = checkLimits({ ...state.limits, ...options.limits });
  state.model = options.model.name;
  const signal = options.signal ?? new AbortController().signal;
  // Once `run_stopped` is emitted, nothing more is: a tool that ignored the
  // Stop and still reports progress must not add events after the run's last one.
  const events = eventChain(options.trace);
  const ctx: RunContext = {
    state,
    options,
    signal,
    gate: options.budgetLink?.gate ?? newBudgetGate(),
    emit: events.emit,
    lastPromptTokens: null,
    save: async () => {
      if (!options.store) return;
      // A save before a model call records it (see unfinished_call.ts).
      markModelCall(state, ctx.lastPromptTokens);
      state.updatedAt = isoNow();
      await options.store.save(state);
    },
    remainingUsd: () => {
      const own = roundUsd(state.limits.maxBudgetUsd - state.costUsd);
      return Math.min(own, options.budgetLink?.remainingUsd() ?? Infinity);
    },
    spend: async (usd, callId) => {
      state.costUsd = addUsd(state.costUsd, usd);
      if (callId !== null) {
        state.childCostUsd = addUsd(state.childCostUsd, usd);
        state.callSpend[callId] = addUsd(state.callSpend[callId] ?? 0, usd);
      }
      await options.budgetLink?.spend(usd);
    },
    runChild: (callId) => childRunner(ctx, callId, run),
  };
  // An approval interruption is resolved by the verdict already written into
  // state; every other interruption simply resumes.
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;
  // A call a crash left unfinished may have been billed: count it (an estimate).
  await countUnfinishedCall(ctx);

  const stop = await loop(ctx);
  state.status = stop.status;
  state.interruption = stop.interruption;
  state.stopReason = stop.reason;
  if ("error" in stop && stop.error !== undefined) state.error = stop.error;
  state.updatedAt = isoNow();
  // Emitted before the exit's save: a store that buffers the trace (KvRunStore)
  // commits the final state and its `run_stopped` together.
  const last = ctx.emit({
    type: "run_stopped",
    runId: state.runId,
    status: stop.status,
    reason: stop.reason,
    interruption: stop.interruption,
    turns: state.turns,
    costUsd: state.costUsd,
  });
  events.end();
  await last;
  await ctx.save();
  return state;
}

async function loop(ctx: RunContext): Promise<Exit> {
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
    if (signal.aborted) return exit.cancelled(signal);
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
      return exit.completed("the model answered");
    }
    const verdict = await firstStop(conditions, state) ?? ancestorsBroke(ctx);
    if (verdict) return verdict;
    const stopped = await modelTurn(ctx, definitions, prompt);
    if (stopped) return stopped;
  }
}

function ancestorsBroke(ctx: RunContext): Exit | null {
  const left = ctx.options.budgetLink?.remainingUsd() ?? Infinity;
  return left <= 0 ? exit.budget("budget spent: the parent run's budget is used up") : null;
}
