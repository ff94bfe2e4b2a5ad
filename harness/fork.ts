/**
 * Forks: a new run whose transcript is another run's up to turn N, and the
 * quote of its next model call (counted before anything is spent).
 *
 * A fork is a new tree (new id, no parent) that records where it came from
 * (`forkedFrom`). Its `turns` start at N, so its turn numbering and call ids
 * go on from the source's; its spend (`costUsd`, `usage`) is its own, from $0.
 * Read-only calls it repeats are served from the source's recorded results
 * (see replay.ts).
 *
 * @module
 */
import { contextView, forkContext } from "./context_view.ts";
import { RunStateError } from "./errors.ts";
import { checkLimits, type LimitsInput } from "./limits.ts";
import { newRun, pending, type RunState } from "./state.ts";
import { computeCost, DEFAULT_MAX_OUTPUT_TOKENS, pricesFor } from "./cost.ts";
import { promptEstimate } from "./prompt_estimate.ts";
import { countPromptTokens, loadTokenizer } from "./tokens.ts";
import { toolDefinitions } from "./tool.ts";
import type { RunOptions } from "./run_options.ts";
import type { ChatMessage } from "./messages.ts";
import { ANSWER_ACCEPTED, answerTools, FINAL_ANSWER_TOOL, planOutput } from "./output_turn.ts";
import { cloneData } from "./clone_data.ts";

export type { ForkOrigin } from "./state.ts";

/** Options of {@link forkState}. */
export interface ForkOptions {
  /** The source's turn to fork at: the transcript up to that turn's reply and its tool results. */
  atTurn: number;
  /** The fork's id (default: a random UUID). */
  runId?: string | undefined;
  /** Limits of the fork (default: the source's). */
  limits?: LimitsInput | undefined;
}

/**
 * The number of messages of `state` up to turn `atTurn`: everything before
 * the reply of turn `atTurn + 1` (the whole transcript when there is none).
 * `RangeError` when the run has no such turn.
 */
export function forkPoint(state: Readonly<RunState>, atTurn: number): number {
  const replies = state.messages.filter((m) => m.role === "assistant").length;
  if (!Number.isInteger(atTurn) || atTurn < 0 || atTurn > replies) {
    throw new RangeError(
      `atTurn must be an integer from 0 to ${replies} (the turns of run "${state.runId}"), got ${atTurn}`,
    );
  }
  let seen = 0;
  for (const [i, m] of state.messages.entries()) {
    if (m.role === "assistant" && seen++ === atTurn) return i;
  }
  return state.messages.length;
}

/**
 * A new run whose transcript is `source`'s up to turn `atTurn` (see the
 * module doc). Refused (`RangeError`) at a turn whose next step is not a model
 * call: the run's final answer, or a reply whose calls have no result yet;
 * `RunStateError` for a subagent (fork its root).
 *
 * @example
 * ```ts
 * import { forkState } from "./fork.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("hi");
 * s.messages.push({ role: "assistant", content: "hello" });
 * s.turns = 1;
 * const fork = forkState(s, { atTurn: 0 });
 * console.log(fork.messages.length, fork.forkedFrom); // 1 { runId: ..., turn: 0 }
 * ```
 */
export function forkState(source: Readonly<RunState>, options: ForkOptions): RunState {
  if (source.parentId !== null) {
    throw new RunStateError(
      source.runId,
      source.status,
      "fork",
      `it is a subagent of run "${source.parentId}"; fork its root`,
    );
  }
  const { atTurn } = options;
  const messages = cloneData(source.messages.slice(0, forkPoint(source, atTurn)));
  const [open] = pending({ messages });
  if (open || messages.at(-1)?.role === "assistant" || endsWithAcceptedAnswer(messages)) {
    throw new RangeError(
      open
        ? `cannot fork run "${source.runId}" at turn ${atTurn}: call "${open.id}" of that turn has no result`
        : `cannot fork run "${source.runId}" at turn ${atTurn}: it is the run's final answer`,
    );
  }
  // A new run like any other, then the source's transcript up to the fork point.
  const fork = newRun("(forked)", {
    runId: options.runId,
    model: source.model ?? undefined,
    agent: source.agent,
    limits: checkLimits(options.limits ?? {}, source.limits),
  });
  fork.messages = messages;
  fork.turns = atTurn;
  if (source.promptRatio) fork.promptRatio = source.promptRatio;
  // A compacted source: the fork sends the compacted prompt of its prefix (its compactions are
  // the source's, paid there).
  const context = forkContext(source.context, messages.length);
  if (context) fork.context = context;
  fork.forkedFrom = { runId: source.runId, turn: atTurn };
  // A typed run's fork answers to the same schema; its repairs so far stay marked.
  if (source.outputSchema !== undefined) fork.outputSchema = cloneData(source.outputSchema);
  const repairs = source.outputRepairs?.filter((i) => i < messages.length);
  if (repairs?.length) fork.outputRepairs = repairs;
  return fork;
}

/**
 * The turns a run can be forked at (see {@link forkState}): those whose
 * transcript ends with every call answered and not with the final answer.
 *
 * @example
 * ```ts
 * import { forkableTurns } from "./fork.ts";
 * console.log([...forkableTurns([
 *   { role: "user", content: "hi" },
 *   { role: "assistant", content: "hello" },
 * ])]); // [0]
 * ```
 */
export function forkableTurns(messages: readonly ChatMessage[]): Set<number> {
  const out = new Set<number>();
  let turn = 0;
  let open = new Set<string>();
  const check = (end: number) => {
    if (
      end > 0 && messages[end - 1]?.role !== "assistant" && open.size === 0 &&
      !endsWithAcceptedAnswer(messages, end)
    ) out.add(turn);
  };
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant") {
      check(i);
      turn++;
      open = new Set((m.tool_calls ?? []).map((c) => c.id));
    } else if (m.role === "tool") open.delete(m.tool_call_id);
  }
  check(messages.length);
  return out;
}

/** Whether `messages` (up to `end`) close with a typed run's accepted `final_answer`. */
function endsWithAcceptedAnswer(messages: readonly ChatMessage[], end = messages.length): boolean {
  for (let i = end - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "tool") return false;
    if (m.name === FINAL_ANSWER_TOOL && m.content === ANSWER_ACCEPTED) return true;
  }
  return false;
}

/** The price of a run's next model call, counted before it is made. */
export interface CallQuote {
  /** The turn the call will be. */
  turn: number;
  /** Prompt tokens of the call: the transcript and tool definitions, counted (o200k_base). */
  promptTokens: number;
  /**
   * What the prompt is planned to cost: those tokens scaled, as the loop's
   * budget does, by the highest ratio of the provider's count to reins's the
   * run has seen (with a 5% margin); unscaled before any reply.
   */
  promptUsd: number;
  /** Reply tokens reserved for the call (the model's output limit, `max_tokens`). */
  replyTokens: number;
  /** What the reserved reply costs at most. */
  replyUsd: number;
  /** `promptUsd + replyUsd`: what a hard budget must cover for the call to be made in full. */
  totalUsd: number;
  /** The model priced. */
  model: string;
}

/**
 * Quotes the next model call of `state` with the model, tools and prices it
 * will run with: the exact prompt tokens (the count the scripted provider
 * reports, and what hard budget mode counts) and the reply reservation.
 *
 * @example
 * ```ts
 * import { quoteNextCall } from "./fork.ts";
 * import { newRun } from "./state.ts";
 * const model = { name: "m", complete: () => Promise.reject(new Error("not called")) };
 * const quote = await quoteNextCall(newRun("hello world"), { model });
 * console.log(quote.promptTokens, quote.turn); // 11 1
 * ```
 */
export async function quoteNextCall(
  state: Readonly<RunState>,
  options: Pick<RunOptions, "model" | "tools" | "prices" | "output" | "maxOutputRepairs">,
): Promise<CallQuote> {
  await loadTokenizer();
  const prices = pricesFor(options.prices ?? options.model.prices, options.model.name);
  // The definitions the run will send: its tools, and a typed run's answer tool.
  const plan = planOutput({ ...state } as RunState, options as RunOptions);
  const definitions = [...toolDefinitions(options.tools ?? []), ...answerTools(plan)];
  const promptTokens = countPromptTokens(contextView(state.messages, state.context), definitions);
  const replyTokens = prices.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  // Priced as the loop plans it: the count scaled by the ratio the provider has shown.
  const planned = promptEstimate(state, promptTokens);
  const promptUsd = computeCost({ prompt_tokens: planned, completion_tokens: 0 }, prices);
  const replyUsd = computeCost({ prompt_tokens: 0, completion_tokens: replyTokens }, prices);
  return {
    turn: state.turns + 1,
    promptTokens,
    promptUsd,
    replyTokens,
    replyUsd,
    totalUsd: computeCost({ prompt_tokens: planned, completion_tokens: replyTokens }, prices),
    model: options.model.name,
  };
}
