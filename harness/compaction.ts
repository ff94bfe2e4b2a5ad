/**
 * A compaction: a step of its own kind before a model call, when the prompt
 * is over the policy's trigger (or the provider refused it as too long).
 * Cheapest first: old tool results are elided from the prompt (free, no
 * call); when that is not enough, the turns before the last `keepTurns` are
 * summarized by a model call and the summary replaces them in the prompt.
 *
 * After the provider refused a prompt as too long (its window is then
 * unknown), only the last turn is kept and the turns before it are
 * summarized (elided only when summaries are off).
 *
 * A summary call is handled like a model turn: its prompt is counted and its
 * cost quoted before it runs; the budget must pay for it (in hard mode, for
 * it and the next turn, else the run stops `budget_exceeded`; refused only
 * while siblings' calls in flight hold the rest in reserve, it waits for one
 * to settle and the loop comes back to compact anew); it is marked
 * in the state before it is sent (`modelCall.kind: "compaction"`), so a crash
 * during it is counted on resume as an estimate and the resume summarizes
 * again; its reply is billed, traced (`compaction`) and committed in one save,
 * so a committed summary is never asked for again. Replies lost on the way and
 * a reply with invalid usage are counted as estimates, at the summary model's
 * prices (see lost_replies.ts). A summary no shorter than the turns it
 * replaces is cut to fit under them. It does not count under `maxTurns`. The
 * transcript is never cut: only `state.context` changes.
 *
 * @module
 */
import type { ChatMessage } from "./messages.ts";
import type { ModelReply } from "./model.ts";
import type { CompactionVerdict, RunContext } from "./run_context.ts";
import type { ModelError } from "./errors.ts";
import { messageOf } from "./message_of.ts";
import { ELIDE_TARGET, type ResolvedContextPolicy } from "./context_policy.ts";
import {
  type ContextState,
  elidable,
  emptyContext,
  headLength,
  keptFrom,
  shownRange,
  turnsBetween,
} from "./context_view.ts";
import { summaryRequest } from "./summary_prompt.ts";
import { addUsd, computeCost, pricesFor, roundUsd } from "./cost.ts";
import { countPromptTokens, countTokens, truncateToTokens } from "./tokens.ts";
import { type CallPlan, callSettled, mayFitLater, planCall, reserve } from "./budget_gate.ts";
import { type Exit, exit } from "./exit.ts";
import { usageProblem } from "./model_turn.ts";
import { countInvalidUsage, countLostReplies } from "./lost_replies.ts";
import { isoNow } from "./iso_now.ts";
import { cutText } from "./text.ts";

/** What one compaction works from. */
export interface CompactionInput {
  /** The run. */
  ctx: RunContext;
  /** The run's policy. */
  policy: ResolvedContextPolicy;
  /** Over the trigger, or refused by the provider (then only the last turn is kept). */
  reason: "trigger" | "context_length";
  /** Prompt tokens now. */
  before: number;
  /** Prompt tokens the transcript makes under a context (tool definitions included). */
  count(context: ContextState): number;
}

/** Longest summary stored (characters); a longer reply is cut. */
export const MAX_SUMMARY_CHARS = 16_000;

/**
 * Compacts the prompt before the next model call: elides, else summarizes
 * (see the module doc). Returns the Exit when the run must stop, `waited`
 * after a wait for a sibling's call, else null (also when there is nothing
 * older than the turns kept).
 */
export async function compact(input: CompactionInput): Promise<CompactionVerdict> {
  const { ctx, policy, reason } = input;
  const messages = ctx.state.messages;
  const pre = ctx.state.context ?? emptyContext();
  const from = Math.max(headLength(messages), pre.summarizedTo);
  const keep = reason === "context_length" ? 1 : policy.keepTurns;
  const cut = keptFrom(messages, from, keep);
  if (cut === null) return null;
  const summarizes = policy.strategies.includes("summarize");
  if (policy.strategies.includes("elide")) {
    const elided = elidable(messages, Math.max(from, pre.elidedTo), cut);
    const next = { ...pre, elidedTo: Math.max(pre.elidedTo, cut) };
    const after = elided > 0 ? input.count(next) : input.before;
    // After a refusal the real window is unknown: elision alone is trusted only under the trigger.
    const enough = reason === "trigger" && after <= policy.triggerTokens * ELIDE_TARGET;
    if (elided > 0 && (!summarizes || enough)) {
      await commit(input, { ...next, compactions: pre.compactions + 1 }, {
        strategy: "elide",
        elided,
        after,
      });
      return null;
    }
  }
  return summarizes ? await summarize(input, pre, from, cut) : null;
}

/** What a committed compaction reports in its trace event. */
interface Outcome {
  strategy: "elide" | "summarize";
  elided: number;
  after: number;
  quotedUsd?: number;
  costUsd?: number;
  reply?: ModelReply;
  ms?: number;
}

/** Stores the new context, traces it and saves (the event rides with the save). */
async function commit(input: CompactionInput, next: ContextState, o: Outcome): Promise<void> {
  const { ctx } = input;
  const { state } = ctx;
  state.context = next;
  // The save marks the next turn anew: a crash estimate counts the compacted prompt.
  state.modelCall = null;
  ctx.lastPromptTokens = o.after;
  await ctx.emit({
    type: "compaction",
    runId: state.runId,
    compaction: next.compactions,
    strategy: o.strategy,
    reason: input.reason,
    turn: state.turns + 1,
    tokensBefore: input.before,
    tokensAfter: o.after,
    prompt_tokens: o.reply?.usage.prompt_tokens ?? 0,
    completion_tokens: o.reply?.usage.completion_tokens ?? 0,
    quotedUsd: o.quotedUsd ?? 0,
    compactionCostUsd: o.costUsd ?? 0,
    costUsd: state.costUsd,
    summarizedTurns: next.summary === null ? 0 : next.summaryTurns,
    elided: o.elided,
    ...(o.strategy === "summarize" ? { summary: next.summary ?? "" } : {}),
    ms: o.ms ?? 0,
  });
  await ctx.save();
}

/** The two messages of the summary call, cut to fit the summary model's window. */
function request(input: CompactionInput, pre: ContextState, from: number, cut: number) {
  const { policy, ctx } = input;
  const messages = ctx.state.messages;
  const room = Math.max(1, policy.windowTokens - policy.summaryMaxTokens - 64);
  let shown: ChatMessage[] = shownRange(messages, pre, from, cut);
  let req = summaryRequest(pre.summary, shown);
  if (countPromptTokens(req) > room) {
    // Over the window with the results it still shows: summarize their stubs.
    shown = shownRange(messages, { ...pre, elidedTo: cut }, from, cut);
    req = summaryRequest(pre.summary, shown);
  }
  let tokens = countPromptTokens(req);
  if (tokens > room) {
    const text = truncateToTokens(
      req[1].content ?? "",
      room - (tokens - countPromptTokens([req[1]])),
    );
    req = [req[0], { role: "user", content: text }];
    tokens = countPromptTokens(req);
  }
  return { messages: req, tokens };
}

/** Summarizes `messages[from .. cut)` (and the earlier summary) with a model call. */
async function summarize(
  input: CompactionInput,
  pre: ContextState,
  from: number,
  cut: number,
): Promise<CompactionVerdict> {
  const { ctx, policy } = input;
  const { state, signal } = ctx;
  const req = request(input, pre, from, cut);
  const next: ContextState = {
    ...pre,
    summarizedTo: cut,
    summaryTurns: pre.summaryTurns + turnsBetween(state.messages, from, cut),
    compactions: pre.compactions + 1,
  };
  const quotedUsd = computeCost(
    { prompt_tokens: req.tokens, completion_tokens: policy.summaryMaxTokens },
    policy.summaryPrices,
  );
  const bare = input.count({ ...next, summary: "" });
  // Even an empty summary would not shrink the prompt (the turns it replaces are
  // smaller than its frame): no call is worth paying for.
  if (bare >= input.before) return null;
  const plan = planSummary(input, req.tokens, bare);
  if (plan.type === "refused") {
    if (!mayFitLater(ctx.gate)) return exit.budget(plan.reason);
    // A sibling's call holds the rest in reserve, as for a model turn: once it settles the
    // loop checks the limits again (a Stop meanwhile is its cancelled exit) and plans anew.
    // Stopping here would make the run's exit depend on timing.
    await callSettled(ctx.gate, signal);
    return "waited";
  }
  // Recorded before it is sent: a crash during the call is counted on resume.
  state.modelCall = {
    turn: state.turns + 1,
    since: isoNow(),
    promptTokens: req.tokens,
    kind: "compaction",
  };
  // Reserved before the save: a sibling that plans while it commits sees this call;
  // released once its cost is spent, so a sibling woken then plans with it counted.
  const release = reserve(ctx.gate, plan.reservedUsd);
  try {
    return await summaryCall(input, { req, next, plan, quotedUsd, release });
  } finally {
    release();
  }
}

/** What {@link summaryCall} needs of its summary's plan. */
interface SummaryCall {
  req: { messages: ChatMessage[]; tokens: number };
  next: ContextState;
  plan: Extract<CallPlan, { type: "call" }>;
  quotedUsd: number;
  /** Releases the call's reservation (after its cost is spent). */
  release: () => void;
}

/** The reserved summary call: sent, its reply counted and committed (or the exit it ends in). */
async function summaryCall(
  input: CompactionInput,
  { req, next, plan, quotedUsd, release }: SummaryCall,
): Promise<CompactionVerdict> {
  const { ctx, policy } = input;
  const { options, signal } = ctx;
  if (options.store) await ctx.save(); // its failure is the run's, not the call's
  const started = performance.now(); // the call's time, not the save's
  const reply = await policy.summaryModel.complete(
    { messages: req.messages, tools: [], maxTokens: plan.maxTokens ?? policy.summaryMaxTokens },
    signal,
  ).catch((e: unknown) => ({ failed: e }));
  // Priced as the summary model's, its prompt as counted here when the provider reported none.
  const call = {
    prices: policy.summaryPrices,
    promptTokens: req.tokens,
    kind: "compaction" as const,
  };
  if ("failed" in reply) {
    if (signal.aborted) return exit.cancelled(signal);
    await countLostReplies(ctx, (reply.failed as Partial<ModelError>).lost, undefined, [], call);
    const message = messageOf(reply.failed);
    const kind = (reply.failed as ModelError).kind;
    return exit.failed(
      `compaction failed: the summary call failed${kind ? ` (${kind})` : ""}: ${message}`,
      message,
    );
  }
  const ms = performance.now() - started;
  if (reply.lost?.length) {
    await countLostReplies(ctx, reply.lost, reply.usage?.prompt_tokens, [], call);
  }
  const bad = usageProblem(reply.usage);
  if (bad) {
    // The provider answered, so it may have billed the summary: counted, the run ends `failed`.
    const reason = await countInvalidUsage(ctx, reply, bad, [], call);
    return exit.failed(
      `compaction failed: ${reason}; the summary is counted as an estimate`,
      bad,
    );
  }
  return await commitSummary(input, next, { reply, ms, quotedUsd, spent: release }) ?? "summarized";
}

/** Bills the summary and commits it (one save: billed, traced and stored together). */
async function commitSummary(
  input: CompactionInput,
  next: ContextState,
  o: { reply: ModelReply; ms: number; quotedUsd: number; spent: () => void },
): Promise<Exit | null> {
  const { ctx, policy } = input;
  const { state } = ctx;
  const { usage } = o.reply;
  const costUsd = computeCost(usage, policy.summaryPrices);
  state.modelCall = null;
  state.usage.prompt_tokens += usage.prompt_tokens;
  state.usage.completion_tokens += usage.completion_tokens;
  await ctx.spend(costUsd, null);
  o.spent(); // the reservation gives way to the cost
  const summary = cutText((o.reply.message.content ?? "").trim(), MAX_SUMMARY_CHARS);
  const done: ContextState = {
    ...next,
    summary,
    costUsd: addUsd(next.costUsd, costUsd),
    usage: {
      prompt_tokens: next.usage.prompt_tokens + usage.prompt_tokens,
      completion_tokens: next.usage.completion_tokens + usage.completion_tokens,
    },
  };
  let after = input.count(done);
  if (after >= input.before && summary !== "") {
    // No shorter than what it replaced, it would grow the prompt it was to shrink: cut to
    // fit (there is room: summarize() checked that an empty summary shrinks it).
    const keep = countTokens(summary) - (after - input.before) - 1;
    done.summary = truncateToTokens(summary, Math.max(1, keep)).trimEnd();
    after = input.count(done);
  }
  await commit(input, done, { strategy: "summarize", elided: 0, after, ...o, costUsd });
  return summary === ""
    ? exit.failed("compaction failed: the summary call returned no text")
    : null;
}

/**
 * The budget's verdict on a summary call: as for a turn (the gate, the
 * ancestors' budgets), and in hard mode the budget must also pay for the
 * whole summary at its cap and for the next turn's prompt.
 */
function planSummary(input: CompactionInput, promptTokens: number, nextPrompt: number) {
  const { ctx, policy } = input;
  const { options } = ctx;
  const hard = options.budgetMode === "hard";
  const own = pricesFor(options.prices ?? options.model.prices, options.model.name);
  const nextUsd = hard
    ? computeCost(
      { prompt_tokens: nextPrompt + policy.summaryMaxTokens, completion_tokens: 1 },
      own,
    )
    : 0;
  const promptUsd = computeCost(
    { prompt_tokens: promptTokens, completion_tokens: 0 },
    policy.summaryPrices,
  );
  const plan = planCall({
    gate: ctx.gate,
    hard,
    ownUsd: () => roundUsd(ctx.remainingUsd() - nextUsd),
    ancestorsUsd: () => options.budgetLink?.remainingUsd(),
    promptUsd: () => promptUsd,
    outputPerMillion: policy.summaryPrices.outputPerMillion,
    maxOutputTokens: policy.summaryMaxTokens,
  });
  if (plan.type === "call" && (!hard || plan.maxTokens === policy.summaryMaxTokens)) return plan;
  if (!hard) return plan; // refused: the rest is reserved by calls in flight
  const quoted = computeCost(
    { prompt_tokens: promptTokens, completion_tokens: policy.summaryMaxTokens },
    policy.summaryPrices,
  );
  return {
    type: "refused" as const,
    reason: `budget spent: a compaction (quoted $${quoted.toFixed(6)}) and the next turn ` +
      `($${nextUsd.toFixed(6)}) cost more than the $${
        Math.max(0, ctx.remainingUsd()).toFixed(6)
      } ` +
      `left (hard budget, not compacted)`,
  };
}
