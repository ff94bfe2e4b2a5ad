/**
 * A deep copy of a run's state, or of any JSON-shaped data: plain objects,
 * arrays, strings, numbers, booleans, null and undefined. Written out rather
 * than `structuredClone`, whose first use in a process costs about 0.2 MB
 * (V8's serializer) of a fresh one that needs nothing else of it; a run's
 * state holds nothing but such data (it is stored, sent and shown as JSON).
 * Anything else (a function, a symbol, a bigint, a Map, a class instance, a
 * cycle) is refused with a `TypeError`, as `structuredClone` refuses what it
 * cannot copy. Own enumerable keys are copied (a `__proto__` key as a key);
 * an array's holes become `undefined`, as they would through JSON.
 *
 * @module
 */

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
  const root: Record<string, unknown> = {};
  // Depth-first with a stack of its own, not recursion: data a model wrote may nest deeper
  // than the call stack goes (structuredClone gives up at about 10,000 levels).
  const todo: (Work | Within)[] = [{ src: value, into: root, key: "", within: null }];
  const open = new Set<object>(); // the objects being copied: one met again inside is a cycle
  for (let w = todo.pop(); w; w = todo.pop()) {
    if (!("into" in w)) {
      open.delete(w.value); // its keys are all copied
      continue;
    }
    const { src } = w;
    if (typeof src !== "object" || src === null) {
      if (notData(src)) throw refused(w, `a ${typeof src}`);
      put(w.into, w.key, src);
      continue;
    }
    if (open.has(src)) throw refused(w, "a cycle");
    const array = Array.isArray(src);
    const proto = Object.getPrototypeOf(src);
    if (!array && proto !== Object.prototype && proto !== null) {
      throw refused(w, `a ${src.constructor?.name || "non-plain object"}`);
    }
    const at: Within = { value: src, key: w.key, parent: w.within };
    // Filled in index order from empty, an array stays packed as the original is
    // (`new Array(n)` is holey for good, and its reads check the prototype chain).
    const out = (array ? [] : plainCopy(src)) as Record<string | number, unknown>;
    put(w.into, w.key, out);
    open.add(src);
    todo.push(at); // taken once its keys are
    // Pushed last to first, so taken (and each object's keys set) in order.
    if (array) {
      for (let i = src.length - 1; i >= 0; i--) {
        todo.push({ src: src[i], into: out, key: i, within: at });
      }
    } else {
      const keys = Object.keys(out);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const v = out[key];
        // A primitive is copied already; an object is replaced by its copy.
        if (typeof v === "object" ? v !== null : notData(v)) {
          todo.push({ src: v, into: out, key, within: at });
        }
      }
    }
  }
  return root[""] as T;
}

/** A value to copy into `into[key]`, within the objects of `within` (its path). */
interface Work {
  src: unknown;
  into: Record<string | number, unknown>;
  key: string | number;
  within: Within | null;
}

/** An object being copied, and the one it is in (the root's parent is null). */
interface Within {
  value: object;
  key: string | number;
  parent: Within | null;
}

/**
 * A shallow copy of a plain object, its values to be replaced by their
 * copies. Spread, not set key by key: V8 turns an object given more than a
 * dozen keys one by one into a dictionary (a run's state has about 30), and
 * every later read of it (the loop reads the state all run long) is slower.
 * An object with symbol keys, which spread would copy, is copied key by key.
 */
function plainCopy(src: object): Record<string, unknown> {
  if (Object.getOwnPropertySymbols(src).length === 0) return { ...src };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(src)) put(out, key, (src as Record<string, unknown>)[key]);
  return out;
}

/** A function, a symbol or a bigint: refused (see the module doc). */
function notData(v: unknown): boolean {
  return typeof v === "function" || typeof v === "symbol" || typeof v === "bigint";
}

/** Sets a key of a copy: a `__proto__` key as a key, not the copy's prototype. */
function put(into: Record<string | number, unknown>, key: string | number, v: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(into, key, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else into[key] = v;
}

function refused(w: Work, what: string): TypeError {
  const keys: (string | number)[] = [w.key];
  for (let a = w.within; a && a.parent; a = a.parent) keys.unshift(a.key);
  let path = "";
  for (const k of keys) path += typeof k === "number" ? `[${k}]` : path ? `.${k}` : k;
  return new TypeError(`Cannot copy ${path || "the value"}: ${what}, not data`);
}
