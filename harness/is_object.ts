/**
 * The one test for a plain JSON-ish object, shared by every reader of
 * outside data (replies, stream chunks, stored records, MCP arguments).
 *
 * @module
 */

/**
 * Whether `v` is an object that is neither null nor an array.
 *
 * @example
 * ```ts
 * import { isObject } from "./is_object.ts";
 * console.log(isObject({ a: 1 }), isObject([1]), isObject(null)); // true false false
 * ```
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
