/**
 * The loop: run what is pending, else ask the model; stop on any limit or
 * condition, recording why as data. Resume and approval are the same path.
 *
 * @module
 */
import type { RunOptions } from "./run_options.ts";
import { pending, RESUMABLE_STATUSES, type RunState } from "./state.ts";
import { RunStateError, RunTooLargeError } from "./errors.ts";
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
import { saveQueue } from "./save_queue.ts";
import { contextWindow } from "./context_window.ts";

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
  // What each call's child has stored of its cost (children running in this process).
  const childStored: Record<string, number> = {};
  // Every save of this run, in order: checkpoints, and children's stored spend as it happens.
  const saves = saveQueue(async (spendOnly) => {
    if (!options.store) return;
    // A checkpoint before a model call records it (see unfinished_call.ts).
    if (!spendOnly) markModelCall(state, ctx.lastPromptTokens);
    state.updatedAt = isoNow();
    const saved = spendOnly ? storedSpendOnly(state, childStored) : state;
    await options.store.save(saved);
    options.budgetLink?.saved?.(saved.costUsd);
  });
  const ctx: RunContext = {
    state,
    options,
    signal,
    gate: options.budgetLink?.gate ?? newBudgetGate(),
    emit: events.emit,
    lastPromptTokens: null,
    window: contextWindow(options),
    save: () => options.store ? saves.checkpoint() : Promise.resolve(),
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
    childSaved: (callId, usd) => {
      childStored[callId] = usd;
      // Children save between this run's checkpoints: the stored cost keeps up.
      if (options.store) saves.spent();
    },
    runChild: (callId) => childRunner(ctx, callId, run),
  };
  // An approval interruption is resolved by the verdict already written into
  // state; every other interruption simply resumes.
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;
  // A call a crash left unfinished may have been billed: count it (an estimate).
  const stop = await countUnfinishedCall(ctx).then(() => loop(ctx)).catch(tooLarge).catch((e) => {
    saves.abandon(); // no spend save may land after run() has thrown
    throw e;
  });
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
    status: state.status,
    reason: state.stopReason ?? stop.reason,
    interruption: state.interruption,
    turns: state.turns,
    costUsd: state.costUsd,
  });
  events.end();
  await last.catch((e) => {
    saves.abandon(); // the sink failed at the last event: no save may follow run()
    throw e;
  });
  if (options.store) {
    // Over the store's ceiling the run is stored failed (texts cut, its stored
    // run_stopped too): return what was stored.
    const cut = await saves.close().then(() => null, tooLarge);
    if (cut) {
      state.status = cut.status;
      state.interruption = null;
      state.stopReason = cut.reason;
      state.error ??= cut.reason;
    }
  }
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
    const verdict = await firstStop(conditions, state) ?? ancestorsBroke(ctx) ??
      await ctx.window.beforeTurn(ctx, definitions);
    if (verdict) return verdict;
    const stopped = await modelTurn(ctx, definitions, prompt);
    if (stopped) return stopped;
  }
}

/**
 * The state with each running child's spend as far as that child has stored
 * it: a spend save never stores more of a child's spend than the child's
 * record holds (a crash between a child's reply and its commit must not leave
 * the parent counting a reply the resume asks, and bills, again).
 */
function storedSpendOnly(state: RunState, childStored: Record<string, number>): RunState {
  let lag = 0;
  const callSpend = { ...state.callSpend };
  for (const [callId, usd] of Object.entries(childStored)) {
    const ahead = roundUsd((callSpend[callId] ?? 0) - usd);
    if (ahead > 0) {
      lag = addUsd(lag, ahead);
      callSpend[callId] = usd;
    }
  }
  if (!(lag > 0)) return state;
  return {
    ...state,
    callSpend,
    costUsd: roundUsd(state.costUsd - lag),
    childCostUsd: roundUsd(state.childCostUsd - lag),
  };
}

/** A save over the store's ceiling is the run's `failed` exit; anything else is rethrown. */
function tooLarge(e: unknown): Exit {
  if (e instanceof RunTooLargeError) return exit.failed(e.reason, e.reason);
  throw e;
}

function ancestorsBroke(ctx: RunContext): Exit | null {
  const left = ctx.options.budgetLink?.remainingUsd() ?? Infinity;
  return left <= 0 ? exit.budget("budget spent: the parent run's budget is used up") : null;
}
