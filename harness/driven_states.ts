/**
 * The states `run()` is driving. Every save of such a state comes from the
 * loop, which built each of its header's fields from validated parts (the
 * run's limits and prices, usage checked by the loop): a store may validate
 * the first save of a run (its input) and then only what is new (its
 * messages), not the whole header again on every save. The mark is lifted
 * before `run()` hands the state back, so a caller's own save is checked.
 *
 * @module
 */

const driving = new WeakSet<object>();

/**
 * Marks `state` as driven by `run()` (true) or hands it back (false).
 *
 * @example
 * ```ts
 * import { isDrivenByRun, markDrivenByRun } from "./driven_states.ts";
 * const state = {};
 * markDrivenByRun(state, true);
 * console.log(isDrivenByRun(state)); // true
 * ```
 */
export function markDrivenByRun(state: object, driven: boolean): void {
  if (driven) driving.add(state);
  else driving.delete(state);
}

/**
 * Whether `run()` is driving `state` (see the module doc).
 *
 * @example
 * ```ts
 * import { isDrivenByRun } from "./driven_states.ts";
 * console.log(isDrivenByRun({})); // false
 * ```
 */
export function isDrivenByRun(state: object): boolean {
  return driving.has(state);
}
