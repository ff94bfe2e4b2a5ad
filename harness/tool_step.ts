/**
 * Running the pending calls of the last assistant message: validation,
 * approval, dedupe, intents for writes, error policy. Outcomes become
 * transcript messages; only exits become an `Exit`.
 *
 * @module
 */
import type { ToolCall } from "./messages.ts";
import type { AnyTool } from "./run_options.ts";
import type { RunContext } from "./run_context.ts";
import { type Exit, exit } from "./exit.ts";
import { displayArgs, invokeTool, prepareCall, type ToolOutcome } from "./execute_tool.ts";
import { cachedResult, callSignature } from "./dedupe.ts";
import type { ToolContext } from "./tool.ts";
import { type Recorded, replayedResult } from "./replay.ts";

/** What lives for one `run()` call only. */
export interface ToolSession {
  /** Signature + error of the last failed execution, for "twice in a row". */
  lastFailure: string | null;
}

type Runnable = { call: ToolCall; tool: AnyTool; args: unknown; signature: string };

/**
 * Runs pending calls in order (consecutive read-only calls together, up to
 * `concurrency`); returns the Exit when the run must end.
 */
export async function runToolCalls(
  ctx: RunContext,
  calls: ToolCall[],
  tools: ReadonlyMap<string, AnyTool>,
  session: ToolSession,
): Promise<Exit | null> {
  const reads = readBatch(ctx, session);
  for (const call of calls) {
    if (ctx.signal.aborted) return exit.cancelled(ctx.signal);
    const stopped = await runCall(ctx, session, reads, call, tools);
    if (stopped) return stopped;
  }
  return await reads.flush();
}

/** Read-only calls waiting to run together; anything else flushes them first. */
interface ReadBatch {
  /** Queues a read-only call (runs the batch once it is full). */
  add(r: Runnable): Promise<Exit | null>;
  /** Runs the queued calls at once and records their outcomes in order. */
  flush(): Promise<Exit | null>;
}

/** One pending call: invalid, awaiting a verdict, cached, a read to batch, or a write. */
async function runCall(
  ctx: RunContext,
  session: ToolSession,
  reads: ReadBatch,
  call: ToolCall,
  tools: ReadonlyMap<string, AnyTool>,
): Promise<Exit | null> {
  const prepared = prepareCall(call, tools);
  if (prepared.type === "invalid") {
    return (await reads.flush()) ?? await recordInvalid(ctx, session, call, prepared.error);
  }
  const { tool, args } = prepared;
  const r = runnable(call, tool, args);
  const needs = typeof tool.needsApproval === "function"
    ? tool.needsApproval(args)
    : tool.needsApproval;
  const why = verdictNeeded(ctx, r, needs);
  if (why) return (await reads.flush()) ?? await askApproval(ctx, call, tool, why);
  const cached = cachedResult(ctx, r);
  if (cached !== undefined) return (await reads.flush()) ?? await serveCached(ctx, call, cached);
  // A fork's repeated read is served from its source's recorded result (replay.ts).
  const replayed = ctx.state.forkedFrom && !needs ? await replayedResult(ctx, r, tools) : undefined;
  if (replayed) return (await reads.flush()) ?? await serveCached(ctx, call, replayed);
  if (tool.readOnly && !needs) return await reads.add(r);
  return (await reads.flush()) ?? await runWrite(ctx, session, r);
}

/**
 * A call ready to run. Its signature (canonical JSON and a hash of the
 * arguments) is computed on first use: only dedupe and a failed call need it.
 */
class LazyRunnable implements Runnable {
  #signature: string | undefined;
  constructor(readonly call: ToolCall, readonly tool: AnyTool, readonly args: unknown) {}
  get signature(): string {
    return (this.#signature ??= callSignature(this.tool.name, this.args));
  }
}

function runnable(call: ToolCall, tool: AnyTool, args: unknown): Runnable {
  return new LazyRunnable(call, tool, args);
}

const NOTHING: Promise<null> = Promise.resolve(null);

function readBatch(ctx: RunContext, session: ToolSession): ReadBatch {
  const concurrency = Math.max(1, ctx.options.concurrency ?? 4);
  let queued: Runnable[] = [];
  // Plain functions, not async ones: called for every call, they mostly have nothing to wait for.
  const flush = (): Promise<Exit | null> => {
    const todo = queued;
    queued = [];
    return todo.length ? runReads(ctx, session, todo) : NOTHING;
  };
  return {
    add: (r) => {
      queued.push(r);
      return queued.length >= concurrency ? flush() : NOTHING;
    },
    flush,
  };
}

/** Runs read-only calls at once; on a Stop, keeps the results of those that finished. */
async function runReads(
  ctx: RunContext,
  session: ToolSession,
  todo: Runnable[],
): Promise<Exit | null> {
  const { signal } = ctx;
  // One outcome per call, in order (settleAll's contract): `outcomes[i]!` below is in range.
  const outcomes = await settleAll(todo.map((r) => execute(ctx, r)));
  if (signal.aborted) {
    // Calls that finished before the Stop keep their results, as the trace says they ran.
    for (let i = 0; i < todo.length; i++) {
      const o = outcomes[i]!;
      if (o.status === "fulfilled" && o.value.finished) {
        await record(ctx, session, todo[i]!, o.value.outcome);
      }
    }
    return exit.cancelled(signal);
  }
  for (let i = 0; i < todo.length; i++) {
    const o = outcomes[i]!;
    if (o.status === "rejected") throw o.reason;
    const stopped = await record(ctx, session, todo[i]!, o.value.outcome);
    if (stopped) return stopped;
  }
  return null;
}

/** `Promise.allSettled`, with the common batch of one awaited directly. */
async function settleAll<T>(promises: Promise<T>[]): Promise<PromiseSettledResult<T>[]> {
  if (promises.length !== 1) return await Promise.allSettled(promises);
  try {
    return [{ status: "fulfilled", value: await promises[0]! }];
  } catch (reason) {
    return [{ status: "rejected", reason }];
  }
}

/** Why a person must decide before the call runs, or null when it may run. */
function verdictNeeded(
  ctx: RunContext,
  r: Runnable,
  needs: boolean,
): "needs_approval" | "uncertain_effect" | null {
  const { state } = ctx;
  if (state.approved.includes(r.call.id)) return null;
  const uncertain = state.inFlight.includes(r.call.id) && !r.tool.idempotent;
  if (uncertain) return "uncertain_effect";
  return needs ? "needs_approval" : null;
}

/**
 * An invalid call (unknown tool, bad arguments): its error goes to the model,
 * and to the trace as a failed `tool_result` (it never started, so no `tool_start`).
 */
async function recordInvalid(
  ctx: RunContext,
  session: ToolSession,
  call: ToolCall,
  error: string,
): Promise<Exit | null> {
  await ctx.emit({
    type: "tool_result",
    runId: ctx.state.runId,
    toolName: call.function.name,
    callId: call.id,
    ms: 0,
    ok: false,
    error,
  });
  return await record(ctx, session, { call, tool: undefined, signature: "" }, {
    type: "tool-error",
    error,
    permanent: false,
  });
}

/**
 * A write: commit the intent first, and spend the approval, so a crash
 * mid-tool is known on resume and a non-idempotent retry needs a new verdict.
 */
async function runWrite(ctx: RunContext, session: ToolSession, r: Runnable): Promise<Exit | null> {
  const { state, signal } = ctx;
  const { call } = r;
  if (!state.inFlight.includes(call.id)) state.inFlight.push(call.id);
  state.approved = state.approved.filter((id) => id !== call.id);
  await ctx.save();
  const { outcome, finished } = await execute(ctx, r);
  if (signal.aborted) {
    // The tool finished before the Stop reached it: its outcome is known, so
    // it is recorded (a write that is done must not be left "uncertain", to
    // be retried on a person's word and applied twice).
    if (finished) await record(ctx, session, r, outcome);
    return exit.cancelled(signal);
  }
  return await record(ctx, session, r, outcome);
}

async function askApproval(
  ctx: RunContext,
  call: ToolCall,
  tool: AnyTool,
  why: "needs_approval" | "uncertain_effect",
): Promise<Exit> {
  await ctx.emit({
    type: "approval_required",
    runId: ctx.state.runId,
    toolName: tool.name,
    callId: call.id,
    args: call.function.arguments,
    why,
  });
  const what = why === "uncertain_effect"
    ? `${tool.name} (${call.id}) was interrupted before its result was recorded; its effect is uncertain`
    : `${tool.name} (${call.id}) needs approval`;
  return exit.interrupted(
    { type: "approval", callId: call.id, toolName: tool.name, args: displayArgs(call), why },
    `awaiting a verdict: ${what}`,
  );
}

/** Serves a dedupe hit, or a fork's replayed read (`Recorded`), without running the tool. */
async function serveCached(
  ctx: RunContext,
  call: ToolCall,
  output: string | Recorded,
): Promise<null> {
  const { state } = ctx;
  const replayed = typeof output === "string" ? undefined : output;
  state.messages.push({
    role: "tool",
    tool_call_id: call.id,
    name: call.function.name,
    content: replayed ? replayed.content : output as string,
  });
  await ctx.save();
  await ctx.emit({
    type: "tool_result",
    runId: state.runId,
    toolName: call.function.name,
    callId: call.id,
    ms: 0,
    ok: true,
    ...(replayed
      ? { replayed: { runId: replayed.runId, callId: replayed.callId } }
      : { cached: true }),
  });
  return null;
}

/** Runs one call; `finished` is false when the Stop cut the tool short (its outcome is unknown). */
async function execute(
  ctx: RunContext,
  r: Runnable,
): Promise<{ outcome: ToolOutcome; finished: boolean }> {
  const { state, signal } = ctx;
  const { call, tool } = r;
  await ctx.emit({
    type: "tool_start",
    runId: state.runId,
    toolName: tool.name,
    callId: call.id,
    args: call.function.arguments,
  });
  const toolCtx: ToolContext = {
    signal,
    progress: (label, fraction) =>
      void ctx.emit({
        type: "tool_progress",
        runId: state.runId,
        toolName: tool.name,
        callId: call.id,
        label,
        fraction,
      }),
    runId: state.runId,
    rootId: state.rootId,
    callId: call.id,
    idempotencyKey: `${state.runId}:${call.id}`,
    runChild: ctx.runChild(call.id),
  };
  const started = performance.now();
  state.toolRuns += 1;
  const outcome = await invokeTool(tool, r.args, toolCtx).catch((e) => {
    if (signal.aborted) return null;
    throw e;
  });
  const ms = performance.now() - started;
  if (!outcome) {
    return {
      outcome: { type: "tool-error", error: "cancelled", permanent: false },
      finished: false,
    };
  }
  await ctx.emit({
    type: "tool_result",
    runId: state.runId,
    toolName: tool.name,
    callId: call.id,
    ms,
    ok: outcome.type === "tool-result",
    ...(outcome.type === "tool-error" ? { error: outcome.error } : {}),
    ...(outcome.type === "tool-suspended"
      ? { suspended: { interruption: outcome.interruption, reason: outcome.reason } }
      : {}),
  });
  return { outcome, finished: true };
}

function errorText(
  ctx: RunContext,
  outcome: Extract<ToolOutcome, { type: "tool-error" }>,
  call: ToolCall,
): string {
  const policy = ctx.options.toolErrors ?? "describe";
  if (typeof policy === "function") return policy(outcome.cause ?? new Error(outcome.error), call);
  return policy === "generic" ? "Error" : `Error: ${outcome.error}`;
}

/** Writes an outcome under its call id; returns the Exit when the outcome ends the run. */
async function record(
  ctx: RunContext,
  session: ToolSession,
  r: { call: ToolCall; tool: AnyTool | undefined; signature: string },
  outcome: ToolOutcome,
): Promise<Exit | null> {
  const { state, options } = ctx;
  const { call, tool } = r;
  const name = call.function.name;
  if (outcome.type === "tool-suspended") {
    return exit.interrupted(outcome.interruption, outcome.reason);
  }
  let content: string;
  let stop: Exit | null = null;
  if (outcome.type === "tool-result") {
    content = outcome.output;
    session.lastFailure = null;
    if (tool && options.dedupe && (tool.readOnly || options.dedupeAll)) {
      state.resultCache[r.signature] = call.id;
    }
  } else {
    content = errorText(ctx, outcome, call);
    const strict = options.stopOnPermanentError ?? true;
    const failure = `${r.signature}\u0000${outcome.error}`;
    const fail = (reason: string) => exit.failed(reason, outcome.error);
    if (outcome.permanent && strict) stop = fail(`${name} failed permanently: ${outcome.error}`);
    else if ((options.toolErrors ?? "describe") === "fatal") {
      stop = fail(`${name} failed (tool errors are fatal): ${outcome.error}`);
    } else if (strict && r.signature && session.lastFailure === failure) {
      stop = fail(`${name} failed the same way twice in a row: ${outcome.error}`);
    }
    session.lastFailure = failure;
  }
  state.inFlight = state.inFlight.filter((id) => id !== call.id);
  state.messages.push({ role: "tool", tool_call_id: call.id, name, content });
  if (!stop) await ctx.save(); // an exit saves once, in run()
  return stop;
}
