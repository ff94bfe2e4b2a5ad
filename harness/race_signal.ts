/**
 * Racing a promise against an abort signal, for work that may ignore the
 * signal (a tool, a caller's `fetch`, a stream reader's read): the run still
 * stops at once.
 *
 * @module
 */

/**
 * Settles as `p` does, or rejects with `signal.reason` once it aborts,
 * whichever comes first; a value that arrives after the abort goes to
 * `onLate` (e.g. a response whose body must be cancelled). One listener, no
 * promise of its own beyond the one returned: it runs on every tool call
 * and every read of a streamed reply.
 *
 * @example
 * ```ts
 * import { raceSignal } from "./race_signal.ts";
 * const ac = new AbortController();
 * const never = new Promise<string>(() => {});
 * setTimeout(() => ac.abort(new Error("stop")), 5);
 * await raceSignal(never, ac.signal).catch((e) => console.log(e.message)); // stop
 * ```
 */
export function raceSignal<T>(
  p: PromiseLike<T>,
  signal: AbortSignal,
  onLate?: (value: T) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let done = false;
    const onAbort = () => {
      done = true;
      signal.removeEventListener("abort", onAbort);
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    // No `once`: its options object costs a conversion every call; removed either way.
    else signal.addEventListener("abort", onAbort);
    p.then((v) => {
      if (done) return onLate?.(v);
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    }, (e) => {
      if (done) return;
      signal.removeEventListener("abort", onAbort);
      reject(e);
    });
  });
}
