/**
 * An abortable sleep that never leaves a timer behind.
 *
 * @module
 */

/**
 * The longest delay a timer keeps (2**31 - 1 ms, about 24.8 days): a longer
 * one fires at once (after 1 ms), so a setting over it must be refused.
 *
 * @example
 * ```ts
 * import { MAX_TIMER_MS } from "./sleep.ts";
 * console.log(MAX_TIMER_MS); // 2147483647
 * ```
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds. If `signal` aborts first, the timer is cleared and
 * the promise rejects with `signal.reason` at once; an already-aborted signal
 * rejects without starting a timer.
 *
 * @example
 * ```ts
 * import { sleep } from "./sleep.ts";
 * const ac = new AbortController();
 * setTimeout(() => ac.abort(new Error("stop")), 5);
 * await sleep(1000, ac.signal).catch((e) => console.log(e.message)); // "stop"
 * ```
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
