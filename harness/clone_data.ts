/**
 * A deep copy of a run's state, or of any JSON-shaped data: plain objects,
 * arrays, strings, numbers, booleans, null and undefined. Written out rather
 * than `structuredClone`, whose first use in a process costs about 0.2 MB
 * (V8's serializer) of a fresh one that needs nothing else of it; a run's
 * state holds nothing but such data (it is stored, sent and shown as JSON).
 * Anything else (a function, a symbol, a bigint, a Map, a class instance, a
 * cycle) is refused with a `TypeError`, as `structuredClone` refuses what it
 * cannot copy.
 *
 * @module
 */

/** How deep data may nest: a run's state nests a few levels; deeper is a cycle, or no state. */
const MAX_DEPTH = 256;

/**
 * A deep copy of JSON-shaped `value` (see the module doc).
 *
 * @example
 * ```ts
 * import { cloneData } from "./clone_data.ts";
 * const a = { messages: [{ role: "user", content: "hi" }] };
 * const b = cloneData(a);
 * b.messages.push({ role: "user", content: "again" });
 * console.log(a.messages.length, b.messages.length); // 1 2
 * ```
 */
export function cloneData<T>(value: T): T {
  return copy(value, []) as T;
}

/** Copies `value`; `at` is its path (keys and indexes), built only for an error's words. */
function copy(value: unknown, at: (string | number)[]): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw refused(at, `a ${typeof value}`);
    }
    return value;
  }
  if (at.length >= MAX_DEPTH) throw refused(at, `nested deeper than ${MAX_DEPTH} (a cycle?)`);
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      at.push(i);
      out[i] = copy(value[i], at);
      at.pop();
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw refused(at, `a ${value.constructor?.name || "non-plain object"}`);
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    at.push(key);
    out[key] = copy((value as Record<string, unknown>)[key], at);
    at.pop();
  }
  return out;
}

function refused(at: readonly (string | number)[], what: string): TypeError {
  let path = "";
  for (const k of at.slice(0, 12)) path += typeof k === "number" ? `[${k}]` : path ? `.${k}` : k;
  if (at.length > 12) path += "…";
  return new TypeError(`Cannot copy ${path || "the value"}: ${what}, not data`);
}
