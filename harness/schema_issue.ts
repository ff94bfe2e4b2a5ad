/**
 * One line for a schema's issue, naming the field: how a config file, an
 * agent's options or a run's prices say what is wrong with them.
 *
 * @module
 */
import type { z } from "zod";

/** The issue of a value that must be a number of at least 0 (a budget, a price). */
export const NON_NEGATIVE_NUMBER = "expected a non-negative number";

/** The issue of a value that must be a plain object. */
export const AN_OBJECT = "expected an object";

/**
 * The error option of an object (or record) schema: {@link AN_OBJECT} for a
 * value that is no object, zod's own message for the rest (an unknown key is
 * named as one, not called "expected an object").
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { objectError } from "./schema_issue.ts";
 * const s = z.strictObject({ a: z.number() }, { error: objectError });
 * console.log(s.safeParse(1).error?.issues[0]?.message); // expected an object
 * console.log(s.safeParse({ a: 1, b: 2 }).error?.issues[0]?.message); // Unrecognized key: "b"
 * ```
 */
export function objectError(issue: { code?: string | undefined }): string | undefined {
  return issue.code === "invalid_type" ? AN_OBJECT : undefined;
}

/**
 * A path as a person writes it: `limits.maxTurns`, `prices.models["gpt-4.1"]`,
 * `items[2]`, after `start` when given.
 *
 * @example
 * ```ts
 * import { formatPath } from "./schema_issue.ts";
 * console.log(formatPath(["models", "gpt-4.1", "inputPerMillion"], "prices"));
 * // prices.models["gpt-4.1"].inputPerMillion
 * ```
 */
export function formatPath(path: readonly PropertyKey[], start = ""): string {
  let out = start;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) {
      out += out ? `.${key}` : key;
    } else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * `where: what`, `where` the issue's path after `start`: unknown keys are
 * named; given `input` (the value parsed), the value refused is quoted
 * (`got -1`) when it is a plain one.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { issueLine } from "./schema_issue.ts";
 * const input = { maxTurns: -1 };
 * const issue = z.strictObject({ maxTurns: z.int().min(1) }).safeParse(input).error!.issues[0];
 * console.log(issueLine(issue, "limits", input));
 * // limits.maxTurns: Too small: expected number to be >=1, got -1
 * ```
 */
export function issueLine(issue: z.core.$ZodIssue, start = "", input?: unknown): string {
  const path = formatPath(issue.path, start);
  const where = path ? `${path}: ` : "";
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return `${where}unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`;
  }
  // Zod's own messages already say what they received.
  const got = input === undefined || issue.message.includes("received")
    ? ""
    : gotText(valueAt(input, issue.path));
  return `${where}${issue.message}${got}`;
}

/** The value at `path` inside `input` (undefined where there is none). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** `, got -1` for a plain value (strings quoted and cut); nothing for an object. */
function gotText(value: unknown): string {
  if (typeof value === "string") {
    const quoted = JSON.stringify(value);
    return `, got ${quoted.length > 60 ? `${quoted.slice(0, 57)}..."` : quoted}`;
  }
  if (typeof value === "function") return ", got a function";
  return typeof value === "object" && value !== null ? "" : `, got ${String(value)}`;
}
