/**
 * The loop: run what is pending, else ask the model; stop on any limit or
 * condition, recording why as data. Resume and approval are the same path.
 *
 * @module
 */
import { markDrivenByRun } from "./driven_states.ts";
import type { RunOptions } from "./run_options.ts";
import { RESUMABLE_STATUSES, type RunState } from "./state.ts";
import { RunStateError, RunTooLargeError } from "./errors.ts";
import { checkLimits, checkNonNegative } from "./limits.ts";
import { addUsd, checkPrices, roundUsd } from "./cost.ts";
import { firstStop, isBudgetSpent, type StopCondition } from "./stop_conditions.ts";
import { announceFollowUp, isTurnCapReached } from "./follow_up.ts";
import type { CompactionVerdict, RunContext } from "./run_context.ts";
import { type Exit, exit } from "./exit.ts";
import { toolDefinitions } from "./tool.ts";
import type { ToolDefinition } from "./messages.ts";
import { runToolCalls } from "./tool_step.ts";
import { modelTurn, promptCounter } from "./model_turn.ts";
import { newBudgetGate } from "./budget_gate.ts";
import { childRunner } from "./child_run.ts";
import { countUnfinishedCall, markModelCall } from "./unfinished_call.ts";
import { eventChain } from "./event_chain.ts";
import { isoNow } from "./iso_now.ts";
import { type SaveQueue, saveQueue } from "./save_queue.ts";
import { contextWindow } from "./context_window.ts";
import type { OutputSchema } from "./output.ts";
import {
  answerTools,
  judgeAnswer,
  type OutputPlan,
  planOutput,
  toolCallsToRun,
  verdictDuringRepair,
} from "./output_turn.ts";
import { cloneData } from "./clone_data.ts";

/** A run's state as `run()` returns it: `output` typed as the run's output schema's value. */
export type RunResult<Output> = Omit<RunState, "output"> & { output: Output | null };

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
 *
 * With `output`, `result.output` is the answer parsed by the schema, typed:
 *
 * ```ts
 * import { z } from "zod";
 * import { newRun } from "./state.ts";
 * import { run } from "./run.ts";
 * const model = { name: "m", complete: async () => ({
 *   message: { role: "assistant" as const, content: '{"file":"errors.log","line":3}' },
 *   usage: { prompt_tokens: 10, completion_tokens: 9 }, finishReason: "stop" }) };
 * const output = z.object({ file: z.string(), line: z.number() });
 * const done = await run(newRun("where is the timeout?"), { model, output });
 * console.log(done.status, done.output?.line); // completed 3
 * ```
 */
export function run(
  initial: RunState,
  options: RunOptions & { output?: undefined },
): Promise<RunResult<string>>;
/**
 * Runs (or continues) a run whose final answer must pass `options.output`:
 * `result.output` is the parsed value (see the first signature's example).
 */
export function run<T>(
  initial: RunState,
  options: RunOptions & { output: OutputSchema<T> },
): Promise<RunResult<T>>;
/** Runs (or continues) a run with options whose `output` is not known statically. */
export function run(initial: RunState, options: RunOptions): Promise<RunState>;
export function run(initial: RunState, options: RunOptions): Promise<RunState> {
  // A telemetry observer brackets each execution, children's too (they inherit it).
  const observe = options?.observe;
  return observe ? observe(initial, options, execute) : execute(initial, options);
}

async function execute(initial: RunState, options: RunOptions): Promise<RunState> {
  checkOptions(initial, options);
  const state: RunState = cloneData(initial);
  markDrivenByRun(state, true);
  state.limits = checkLimits(options.limits ?? {}, state.limits);
  state.model = options.model.name;
  const output = planOutput(state, options);
  // Once `run_stopped` is emitted, nothing more is: a tool that ignored the
  // Stop and still reports progress must not add events after the run's last one.
  const events = eventChain(options.trace);
  const { ctx, saves } = runContext(state, options, events.emit, output);
  // An approval interruption is resolved by the verdict already written into
  // state; every other interruption simply resumes.
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;
  // A follow-up's message is traced first; a call a crash left unfinished may
  // have been billed: count it (an estimate).
  const start = () => announceFollowUp(ctx).then(() => countUnfinishedCall(ctx));
  const stop = await start().then(() => loop(ctx)).catch(tooLarge).catch((e) => {
    saves.abandon(); // no spend save may land after run() has thrown
    throw e;
  });
  applyExit(state, stop);
  await stopped(ctx, stop, events.end).catch((e) => {
    saves.abandon(); // the sink failed at the last event: no save may follow run()
    throw e;
  });
  await closeSaves(state, options, saves);
  markDrivenByRun(state, false);
  return state;
}

function checkOptions(initial: RunState, options: RunOptions): void {
  if (!options || typeof options.model?.complete !== "function") {
    throw new TypeError("run(state, options): options.model must be a Model");
  }
  checkPrices(options.prices);
  checkPrices(options.model.prices, "model.prices");
  if (options.minReplyTokens !== undefined) {
    checkNonNegative("minReplyTokens", options.minReplyTokens, true);
  }
  if (!RESUMABLE_STATUSES.includes(initial.status)) {
    throw new RunStateError(initial.runId, initial.status, "resume");
  }
}

/** The context of one `run()` call, and its queue of saves. */
function runContext(
  state: RunState,
  options: RunOptions,
  emit: RunContext["emit"],
  output: OutputPlan | null,
): { ctx: RunContext; saves: SaveQueue } {
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
    signal: options.signal ?? new AbortController().signal,
    gate: options.budgetLink?.gate ?? newBudgetGate(),
    emit,
    lastPromptTokens: null,
    lastFinish: null,
    window: contextWindow(options),
    output,
    save: () => options.store ? saves.checkpoint() : Promise.resolve(),
    remainingUsd: () => {
      const own = roundUsd(state.limits.maxBudgetUsd - state.costUsd);
      return Math.min(own, options.budgetLink?.remainingUsd() ?? Infinity);
    },
    spend: (usd, callId) => spend(ctx, usd, callId),
    childSaved: (callId, usd) => {
      childStored[callId] = usd;
      // Children save between this run's checkpoints: the stored cost keeps up.
      if (options.store) saves.spent();
    },
    runChild: (callId) => childRunner(ctx, callId, run),
  };
  return { ctx, saves };
}

/** Adds `usd` to the run; a promise only when its ancestors hear of it (a child run). */
function spend(ctx: RunContext, usd: number, callId: string | null): Promise<void> | undefined {
  const { state } = ctx;
  state.costUsd = addUsd(state.costUsd, usd);
  if (callId !== null) {
    state.childCostUsd = addUsd(state.childCostUsd, usd);
    state.callSpend[callId] = addUsd(state.callSpend[callId] ?? 0, usd);
  }
  return ctx.options.budgetLink?.spend(usd);
}

function applyExit(state: RunState, stop: Exit): void {
  state.status = stop.status;
  state.interruption = stop.interruption;
  state.stopReason = stop.reason;
  if ("error" in stop && stop.error !== undefined) state.error = stop.error;
  if ("failure" in stop && stop.failure !== undefined) state.failure = stop.failure;
  state.updatedAt = isoNow();
}

/**
 * Emits `run_stopped`, the run's last event. Emitted before the exit's save: a
 * store that buffers the trace (KvRunStore) commits the final state and its
 * `run_stopped` together.
 */
async function stopped(ctx: RunContext, stop: Exit, end: () => void): Promise<void> {
  const { state } = ctx;
  const last = ctx.emit({
    type: "run_stopped",
    runId: state.runId,
    status: state.status,
    reason: state.stopReason ?? stop.reason,
    interruption: state.interruption,
    turns: state.turns,
    costUsd: state.costUsd,
  });
  end();
  await last;
}

/** The exit's save. Over the store's ceiling the run is stored failed: return what was stored. */
async function closeSaves(state: RunState, options: RunOptions, saves: SaveQueue): Promise<void> {
  if (!options.store) return;
  // Texts cut, its stored run_stopped too.
  const cut = await saves.close().then(() => null, tooLarge);
  if (cut) {
    state.status = cut.status;
    state.interruption = null;
    state.stopReason = cut.reason;
    state.error ??= cut.reason;
  }
}

/**
 * The limits' verdict before a model call, else the context window's. Most
 * turns have nothing to wait for here: a promise only when one came (an
 * async stop condition, a compaction).
 */
function nextVerdict(
  ctx: RunContext,
  conditions: readonly StopCondition[],
  definitions: readonly ToolDefinition[],
): CompactionVerdict | Promise<CompactionVerdict> {
  const stop = firstStop(conditions, ctx.state);
  if (stop instanceof Promise) {
    return stop.then((v) => v ?? ancestorsBroke(ctx) ?? ctx.window.beforeTurn(ctx, definitions));
  }
  return stop ?? ancestorsBroke(ctx) ?? ctx.window.beforeTurn(ctx, definitions);
}

async function loop(ctx: RunContext): Promise<Exit> {
  const { state, options, signal } = ctx;
  const tools = new Map((options.tools ?? []).map((t) => [t.name, t]));
  const definitions = [...toolDefinitions(options.tools ?? []), ...answerTools(ctx.output)];
  const conditions = [
    // Counted since the last user message: each message of a conversation gets the cap.
    isTurnCapReached(state.limits.maxTurns),
    isBudgetSpent(state.limits.maxBudgetUsd),
    ...(options.stopWhen ?? []),
  ];
  const session = { lastFailure: null as string | null };
  const prompt = promptCounter(definitions);
  for (;;) {
    if (signal.aborted) return exit.cancelled(signal);
    const calls = toolCallsToRun(state, ctx.output);
    if (calls.length) {
      const stopped = await runToolCalls(ctx, calls, tools, session);
      if (stopped) return stopped;
      continue;
    }
    // Nothing pending and the model answered: accepted, failed, or repaired.
    const judging = judgeAnswer(ctx, ctx.output);
    const judged = judging && await judging;
    if (judged && judged !== "repair") return judged;
    const next = nextVerdict(ctx, conditions, definitions);
    const verdict = next instanceof Promise ? await next : next;
    // The summary call waited for a sibling's call: limits first, then compact anew.
    // A summary call spent: the limits again before the model call (a soft budget
    // overshoots by one call, not two).
    if (verdict === "waited" || verdict === "summarized") continue;
    if (verdict) return verdictDuringRepair(state, verdict);
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
