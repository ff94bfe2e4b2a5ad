/**
 * The budget reservation of a tree: model calls in flight and the USD they
 * reserve, shared by the runs of one tree in this process, so concurrent
 * children cannot each overshoot the root's budget.
 *
 * @module
 */
import { DEFAULT_MAX_OUTPUT_TOKENS, roundUsd } from "./cost.ts";

/**
 * Model calls in flight across one tree, shared by its runs in this process, so
 * concurrent children cannot each overshoot the root's budget.
 */
export interface BudgetGate {
  /** Model calls of the tree in flight now. */
  inFlight: number;
  /** USD reserved by in-flight calls that must fit the budget. */
  reservedUsd: number;
}

/** The most reply tokens a call started beside another call of its tree may reserve. */
export const MAX_RESERVED_TOKENS = 4096;

/**
 * The fewest reply tokens worth a call in hard mode (`minReplyTokens`): about
 * a short sentence or one tool call. A call the rest of the budget caps below
 * it is not made (a 4-token reply is paid for and says nothing).
 */
export const DEFAULT_MIN_REPLY_TOKENS = 32;

/** A gate with nothing in flight (a root run starts one). */
export function newBudgetGate(): BudgetGate {
  return { inFlight: 0, reservedUsd: 0 };
}

/** What {@link planCall} needs to know about the run and its call. */
export interface CallBudget {
  /** The tree's gate. */
  gate: BudgetGate;
  /** `budgetMode: "hard"`. */
  hard: boolean;
  /** USD the run may still spend, its ancestors' budgets counted. */
  ownUsd(): number;
  /** USD the ancestors may still spend; undefined for a root run. */
  ancestorsUsd(): number | undefined;
  /** USD the prompt of the call costs (counted only when needed). */
  promptUsd(): number;
  /** The price of a million reply tokens. */
  outputPerMillion: number;
  /** The model's output limit: `max_tokens` never asks for more (default 16,384). */
  maxOutputTokens?: number | undefined;
  /** Hard mode: fewer reply tokens than this is no call (default {@link DEFAULT_MIN_REPLY_TOKENS}). */
  minReplyTokens?: number | undefined;
}

/** A call that may start (with a reply cap and a reservation), or why it may not. */
export type CallPlan =
  | { type: "call"; maxTokens: number | undefined; reservedUsd: number }
  | { type: "refused"; reason: string };

/**
 * Decides whether a model call fits, its `max_tokens`, and the USD it
 * reserves. Hard mode always fits the call into what is left. Soft mode lets
 * one call of the tree overshoot: a call that starts while another is in
 * flight must fit what the tree has left after the others' reservations, so a
 * tree overshoots by one call (a run refused only for the others' reservations
 * waits for them to settle: {@link mayFitLater}). In hard mode a call whose
 * reply the budget caps below `minReplyTokens` is refused too: it would be paid
 * for and say nothing. Reservations are against the tree's (ancestors')
 * budget, and a reserved reply is capped at {@link MAX_RESERVED_TOKENS}.
 *
 * @example
 * ```ts
 * import { newBudgetGate, planCall } from "./budget_gate.ts";
 * const plan = planCall({
 *   gate: newBudgetGate(), hard: false, ownUsd: () => 1, ancestorsUsd: () => undefined,
 *   promptUsd: () => 0.001, outputPerMillion: 12,
 * });
 * console.log(plan); // { type: "call", maxTokens: undefined, reservedUsd: 0 }
 * ```
 */
export function planCall(b: CallBudget): CallPlan {
  const { gate } = b;
  if (!b.hard && gate.inFlight === 0) return { type: "call", maxTokens: undefined, reservedUsd: 0 };
  const own = b.ownUsd();
  const ancestors = b.ancestorsUsd();
  const remaining = Math.min(own, (ancestors ?? own) - gate.reservedUsd);
  const promptUsd = b.promptUsd();
  const bought = Math.floor(((remaining - promptUsd) * 1e6) / b.outputPerMillion);
  const reserving = gate.inFlight > 0 || ancestors !== undefined;
  const cap = Math.min(
    reserving ? MAX_RESERVED_TOKENS : Infinity,
    b.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
  );
  const maxTokens = Math.min(bought, cap);
  const left = `$${Math.max(0, remaining).toFixed(6)}`;
  if (!(maxTokens >= 1)) {
    const why = b.hard ? "hard budget" : "the rest is reserved by calls in flight";
    return {
      type: "refused",
      reason: `budget spent: the next prompt alone costs $${promptUsd.toFixed(6)} and ${left} ` +
        `is left (${why}, not called)`,
    };
  }
  // The minimum never exceeds what the model or a reservation could give anyway.
  const least = Math.min(b.minReplyTokens ?? DEFAULT_MIN_REPLY_TOKENS, cap);
  if (b.hard && maxTokens < least) {
    return {
      type: "refused",
      reason:
        `budget spent: ${left} is left, which after the next prompt ($${
          promptUsd.toFixed(6)
        }) buys ${maxTokens} reply token${maxTokens === 1 ? "" : "s"}, fewer than the ` +
        `${least} a useful reply needs (minReplyTokens; hard budget, not called)`,
    };
  }
  const reservedUsd = reserving ? promptUsd + (maxTokens * b.outputPerMillion) / 1e6 : 0;
  return { type: "call", maxTokens, reservedUsd };
}

/**
 * Marks a call in flight on `gate`, reserving `usd`; the function returned
 * releases it (once: later calls do nothing). Release it when the call's
 * cost is spent, not when its reply arrives: a sibling woken by the release
 * plans with that cost counted. Call it in `finally`, so no path forgets it.
 *
 * @example
 * ```ts
 * import { newBudgetGate, reserve } from "./budget_gate.ts";
 * const gate = newBudgetGate();
 * const release = reserve(gate, 0.01);
 * console.log(gate.inFlight); // 1
 * release();
 * release(); // nothing more
 * console.log(gate); // { inFlight: 0, reservedUsd: 0 }
 * ```
 */
export function reserve(gate: BudgetGate, usd: number): () => void {
  gate.inFlight += 1;
  gate.reservedUsd = roundUsd(gate.reservedUsd + usd);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    gate.inFlight -= 1;
    gate.reservedUsd = roundUsd(gate.reservedUsd - usd);
    const wakers = waiting.get(gate);
    if (wakers) { for (const wake of [...wakers]) wake(); }
  };
}

/** Runs waiting for a call in flight on a gate to settle (beside it: a gate is plain data). */
const waiting = new WeakMap<BudgetGate, Set<() => void>>();

/**
 * Whether a refused call may fit once the calls in flight settle: they hold
 * reservations, released (and replaced by what they really cost) when they do.
 *
 * @example
 * ```ts
 * import { mayFitLater, newBudgetGate } from "./budget_gate.ts";
 * console.log(mayFitLater({ inFlight: 1, reservedUsd: 0.02 }), mayFitLater(newBudgetGate())); // true false
 * ```
 */
export function mayFitLater(gate: BudgetGate): boolean {
  return gate.inFlight > 0 && gate.reservedUsd > 0;
}

/**
 * Resolves when a call in flight on `gate` settles, at once when none is in
 * flight, or when `signal` aborts.
 *
 * @example
 * ```ts
 * import { callSettled, newBudgetGate, reserve } from "./budget_gate.ts";
 * const gate = newBudgetGate();
 * const release = reserve(gate, 0.01);
 * setTimeout(release, 10);
 * await callSettled(gate, new AbortController().signal);
 * console.log(gate.inFlight); // 0
 * ```
 */
export function callSettled(gate: BudgetGate, signal: AbortSignal): Promise<void> {
  if (gate.inFlight === 0 || signal.aborted) return Promise.resolve();
  const wakers = waiting.get(gate) ?? new Set();
  waiting.set(gate, wakers);
  return new Promise((resolve) => {
    const wake = () => {
      wakers.delete(wake);
      signal.removeEventListener("abort", wake);
      resolve();
    };
    wakers.add(wake);
    signal.addEventListener("abort", wake, { once: true });
  });
}
