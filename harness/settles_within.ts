/**
 * Waiting a bounded time for something that may never finish (a child
 * process's exit, a server's shutdown), with no timer left behind.
 *
 * @module
 */
import { sleep } from "./sleep.ts";

/**
 * Whether `p` settles within `ms`: `true` once it resolves in time, `false`
 * when `ms` pass first (`p` is left running), and `p`'s rejection when it
 * rejects in time. The timer is cleared either way.
 *
 * @example
 * ```ts
 * import { settlesWithin } from "./settles_within.ts";
 * console.log(await settlesWithin(Promise.resolve(), 10)); // true
 * console.log(await settlesWithin(new Promise(() => {}), 10)); // false
 * ```
 */
export async function settlesWithin(p: PromiseLike<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const late = sleep(ms, timer.signal).then(() => false, () => false);
  try {
    return await Promise.race([Promise.resolve(p).then(() => true), late]);
  } finally {
    timer.abort();
  }
}
