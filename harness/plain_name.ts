/**
 * Whether a name is plain: 1 to 64 ASCII letters, digits, `_` and `-` (what
 * providers accept as a tool's name and a call's id). Checked character by
 * character, not by a regular expression: the first one a process runs
 * compiles through V8's regexp engine, about 0.2 MB of a fresh process that
 * otherwise runs none, and each run's every turn checks a call id.
 *
 * @module
 */

/** What {@link isPlainName} accepts, in the words of a regular expression (for messages). */
export const PLAIN_NAME = "/^[a-zA-Z0-9_-]{1,64}$/";

/**
 * Whether `name` is plain (see the module doc); `colon` admits `:` too.
 *
 * @example
 * ```ts
 * import { isPlainName } from "./plain_name.ts";
 * console.log(isPlainName("read_file"), isPlainName("a b"), isPlainName("ns:call_1", true)); // true false true
 * ```
 */
export function isPlainName(name: string, colon = false): boolean {
  if (name.length < 1 || name.length > 64) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ||
      c === 95 || c === 45 || (colon && c === 58);
    if (!ok) return false;
  }
  return true;
}
