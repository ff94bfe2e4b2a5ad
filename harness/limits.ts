/**
 * The limits every run has: a turn cap and a budget. Both are also stop
 * conditions (`isStepCount`, `isBudgetSpent` in `stop_conditions.ts`).
 *
 * @module
 */
import { z } from "zod";
import { NON_NEGATIVE_NUMBER, objectError } from "./schema_issue.ts";

/** The limits every run has. */
export interface RunLimits {
  /**
   * Model calls at most: an integer of at least 1, everywhere (library, config,
   * CLI, HTTP API); 0 is refused, since a run that may not ask the model once
   * cannot do anything.
   */
  maxTurns: number;
  /** USD at most (checked before each model call; see `budgetMode`). */
  maxBudgetUsd: number;
}

/** The defaults when a run states none: 20 turns, $1.00. */
export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({ maxTurns: 20, maxBudgetUsd: 1 });

const TURN_CAP = "expected an integer of at least 1";

/**
 * What a budget a user gives must be (an agent's definition, a config file, a
 * CLI flag, an HTTP request): more than $0, or the run could not make a call.
 * A run's state may hold $0 (a child of a spent parent ends `budget_exceeded`).
 */
export const GIVEN_BUDGET = "expected more than 0 USD";

let schema: ReturnType<typeof buildSchema> | undefined;

/**
 * The one schema of {@link RunLimits}, built on first use (a run that never
 * loads a stored run or a config file never builds it): a stored run's limits
 * are validated with it, the config file's and a run's settings with its
 * `.partial()`, and the HTTP API caps its fields further (server/schemas.ts).
 * {@link checkLimits} applies the same rules to a caller's limits in plain
 * code; a test holds the two to the same verdicts.
 *
 * @example
 * ```ts
 * import { runLimitsSchema } from "./limits.ts";
 * console.log(runLimitsSchema().safeParse({ maxTurns: -1, maxBudgetUsd: 1 }).success); // false
 * ```
 */
export function runLimitsSchema(): z.ZodObject<{
  maxTurns: z.ZodInt;
  maxBudgetUsd: z.ZodNumber;
}, z.core.$strict> {
  return schema ??= buildSchema();
}

function buildSchema() {
  return z.strictObject({
    maxTurns: z.int({ error: TURN_CAP }).min(1, { error: TURN_CAP }).describe(
      "Model calls at most (at least 1)",
    ),
    maxBudgetUsd: z.number({ error: NON_NEGATIVE_NUMBER }).min(0, { error: NON_NEGATIVE_NUMBER })
      .describe(
        "USD at most",
      ),
  }, { error: objectError });
}

/**
 * Throws a `RangeError` naming `name` unless `value` is a non-negative number
 * (an integer when `integer`).
 *
 * @example
 * ```ts
 * import { checkNonNegative } from "./limits.ts";
 * checkNonNegative("isStepCount(n)", 3, true); // fine
 * ```
 */
export function checkNonNegative(name: string, value: number, integer: boolean): void {
  if (
    typeof value !== "number" || !Number.isFinite(value) || value < 0 ||
    // Safe: a stored integer reads back exact (z.int() refuses beyond 2**53 - 1 too).
    (integer && !Number.isSafeInteger(value))
  ) {
    // Infinity too: it does not survive JSON (it becomes null), so a stored run could not resume.
    const unbounded = value === Infinity
      ? " (an unbounded value cannot be stored: give a large one)"
      : "";
    throw new RangeError(
      `${name} must be a finite non-negative ${
        integer ? "integer" : "number"
      }, got ${value}${unbounded}`,
    );
  }
}

/** The fields of {@link RunLimits}, for naming an unknown one. */
const FIELDS: readonly string[] = Object.keys(DEFAULT_LIMITS);

/**
 * Limits as a caller gives them: each optional, and one set to `undefined`
 * is not given (it keeps the value it would have had).
 */
export type LimitsInput = { [K in keyof RunLimits]?: RunLimits[K] | undefined };

/**
 * Validates limits given by a caller, over `base` (default
 * {@link DEFAULT_LIMITS}): a `TypeError` names a field that is no limit (a
 * misspelled `maxTurn` would otherwise be dropped, or stored and refused on
 * load), a `RangeError` names a bad value. A field given as `undefined`
 * keeps `base`'s.
 *
 * @example
 * ```ts
 * import { checkLimits } from "./limits.ts";
 * console.log(checkLimits({ maxTurns: 5 })); // { maxTurns: 5, maxBudgetUsd: 1 }
 * console.log(checkLimits({ maxTurns: undefined }, { maxTurns: 8, maxBudgetUsd: 2 }));
 * // { maxTurns: 8, maxBudgetUsd: 2 }
 * ```
 */
export function checkLimits(limits: LimitsInput, base: RunLimits = DEFAULT_LIMITS): RunLimits {
  // Plain code, not the schema: a fresh process would pay about 0.4 ms to run zod's
  // object parser cold, and every run checks its limits twice (issue 29).
  if (typeof limits !== "object" || limits === null) {
    throw new TypeError(
      `limits must be an object, got ${limits === null ? "null" : typeof limits}`,
    );
  }
  for (const key of Object.keys(limits)) {
    if (!FIELDS.includes(key)) {
      throw new TypeError(`limits has no field "${key}" (the limits: ${FIELDS.join(", ")})`);
    }
  }
  const merged = {
    maxTurns: limits.maxTurns === undefined ? base.maxTurns : limits.maxTurns,
    maxBudgetUsd: limits.maxBudgetUsd === undefined ? base.maxBudgetUsd : limits.maxBudgetUsd,
  };
  if (merged.maxTurns === 0) {
    throw new RangeError(
      "limits.maxTurns must be at least 1 (a run that may not call the model does nothing), got 0",
    );
  }
  checkNonNegative("limits.maxTurns", merged.maxTurns, true);
  checkNonNegative("limits.maxBudgetUsd", merged.maxBudgetUsd, false);
  return merged;
}
