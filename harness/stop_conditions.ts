/**
 * Stop conditions. A run stops when ANY condition says so; the turn cap and
 * the budget are just the two conditions every run has.
 *
 * @module
 */
import { type Exit, exit } from "./exit.ts";
import { checkNonNegative } from "./limits.ts";
import type { RunState } from "./state.ts";

/** A predicate over the run so far; `true` stops it `completed`, an `Exit` stops it as it says. */
export type StopCondition = (
  state: Readonly<RunState>,
) => boolean | Exit | Promise<boolean | Exit>;

/**
 * Stops before the model call that would exceed `n` turns: `max_turns_exceeded`.
 *
 * @example
 * ```ts
 * import { isStepCount } from "./stop_conditions.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("x"); s.turns = 8;
 * console.log(isStepCount(8)(s)); // { status: "max_turns_exceeded", … }
 * ```
 */
export function isStepCount(n: number): StopCondition {
  checkNonNegative("isStepCount(n)", n, true);
  return (s) =>
    s.turns >= n ? exit.maxTurns(`turn cap reached: ${s.turns} of ${n} turns used`) : false;
}

/**
 * Stops before the model call once `usd` or more is spent: `budget_exceeded`.
 *
 * @example
 * ```ts
 * import { isBudgetSpent } from "./stop_conditions.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("x"); s.costUsd = 0.011;
 * console.log(isBudgetSpent(0.01)(s) !== false); // true
 * ```
 */
export function isBudgetSpent(usd: number): StopCondition {
  checkNonNegative("isBudgetSpent(usd)", usd, false);
  return (s) =>
    s.costUsd >= usd
      ? exit.budget(`budget spent: $${s.costUsd.toFixed(6)} of $${usd.toFixed(6)}`)
      : false;
}

/**
 * Stops `completed` once the model has called the named tool (and its result is in).
 *
 * @example
 * ```ts
 * import { hasToolCall } from "./stop_conditions.ts";
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
      ? exit.completed(`stop condition: the model called ${name}`)
      : false;
}

/**
 * Evaluates conditions in order; the first that fires decides. The verdict
 * comes at once while the conditions answer at once (most do: asked before
 * every model call, they cost no promise then), else as a promise.
 *
 * @example
 * ```ts
 * import { firstStop, isStepCount } from "./stop_conditions.ts";
 * import { newRun } from "./state.ts";
 * console.log(await firstStop([isStepCount(3)], newRun("x"))); // null
 * ```
 */
export function firstStop(
  conditions: readonly StopCondition[],
  state: Readonly<RunState>,
): Exit | null | Promise<Exit | null> {
  for (let i = 0; i < conditions.length; i++) {
    const answer = conditions[i]!(state);
    if (answer instanceof Promise) {
      return answer.then((v) => v ? verdictOf(v) : firstStop(conditions.slice(i + 1), state));
    }
    if (answer) return verdictOf(answer);
  }
  return null;
}

function verdictOf(v: true | Exit): Exit {
  if (v === true) return exit.completed("a stop condition was met");
  // A hand-written verdict may omit the interruption (a final exit has none).
  return { ...v, interruption: v.interruption ?? null } as Exit;
}
