/**
 * Limits and stop conditions. A run stops when ANY condition says so; the turn
 * cap and the budget are just the two conditions every run has.
 *
 * @module
 */
import type { Interruption, RunState, RunStatus } from "./state.ts";

/** The limits every run has. */
export interface RunLimits {
  /** Model calls at most. */
  maxTurns: number;
  /** USD at most (checked before each model call; see `budgetMode`). */
  maxBudgetUsd: number;
}

/** The defaults when a run states none: 20 turns, $1.00. */
export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({ maxTurns: 20, maxBudgetUsd: 1 });

/** How a stop condition says the run should end. */
export interface StopVerdict {
  /** The exit status the run stops with. */
  status: Exclude<RunStatus, "running">;
  /** Why a resumable run stopped, as data; absent or null for a final exit. */
  interruption?: Interruption | null;
  /** One sentence for the trace and the run record. */
  reason: string;
}

/** A predicate over the run so far; `true` stops it `completed`, a verdict stops it as it says. */
export type StopCondition = (
  state: Readonly<RunState>,
) => boolean | StopVerdict | Promise<boolean | StopVerdict>;

function positive(name: string, value: number, integer: boolean): void {
  if (
    typeof value !== "number" || Number.isNaN(value) || value < 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new RangeError(
      `${name} must be a non-negative ${integer ? "integer" : "number"}, got ${value}`,
    );
  }
}

/**
 * Stops before the model call that would exceed `n` turns: `max_turns_exceeded`.
 *
 * @example
 * ```ts
 * import { isStepCount } from "./limits.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("x"); s.turns = 8;
 * console.log(isStepCount(8)(s)); // { status: "max_turns_exceeded", … }
 * ```
 */
export function isStepCount(n: number): StopCondition {
  positive("isStepCount(n)", n, true);
  return (s) =>
    s.turns >= n
      ? {
        status: "max_turns_exceeded",
        interruption: { type: "max_turns" },
        reason: `turn cap reached: ${s.turns} of ${n} turns used`,
      }
      : false;
}

/**
 * Stops before the model call once `usd` or more is spent: `budget_exceeded`.
 *
 * @example
 * ```ts
 * import { isBudgetSpent } from "./limits.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("x"); s.costUsd = 0.011;
 * console.log(isBudgetSpent(0.01)(s) !== false); // true
 * ```
 */
export function isBudgetSpent(usd: number): StopCondition {
  positive("isBudgetSpent(usd)", usd, false);
  return (s) =>
    s.costUsd >= usd
      ? {
        status: "budget_exceeded",
        interruption: { type: "max_budget" },
        reason: `budget spent: $${s.costUsd.toFixed(6)} of $${usd.toFixed(6)}`,
      }
      : false;
}

/**
 * Stops `completed` once the model has called the named tool (and its result is in).
 *
 * @example
 * ```ts
 * import { hasToolCall } from "./limits.ts";
 * const stopAfterAnswer = hasToolCall("final_answer");
 * ```
 */
export function hasToolCall(name: string): StopCondition {
  if (typeof name !== "string" || !name) {
    throw new TypeError("hasToolCall(name): name must be a non-empty string");
  }
  return (s) =>
    s.messages.some((m) =>
        m.role === "assistant" && m.tool_calls?.some((c) => c.function.name === name)
      )
      ? { status: "completed", reason: `stop condition: the model called ${name}` }
      : false;
}

/**
 * Evaluates conditions in order; the first that fires decides.
 *
 * @example
 * ```ts
 * import { firstStop, isStepCount } from "./limits.ts";
 * import { newRun } from "./state.ts";
 * console.log(await firstStop([isStepCount(3)], newRun("x"))); // null
 * ```
 */
export async function firstStop(
  conditions: readonly StopCondition[],
  state: Readonly<RunState>,
): Promise<StopVerdict | null> {
  for (const c of conditions) {
    const v = await c(state);
    if (v === true) return { status: "completed", reason: "a stop condition was met" };
    if (v) return v;
  }
  return null;
}

/** Validates limits given by a caller (RangeError names the field). */
export function checkLimits(limits: Partial<RunLimits>): RunLimits {
  const merged = { ...DEFAULT_LIMITS, ...limits };
  positive("limits.maxTurns", merged.maxTurns, true);
  positive("limits.maxBudgetUsd", merged.maxBudgetUsd, false);
  return merged;
}
