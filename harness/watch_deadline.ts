/**
 * Deadlines without a timer each: every pending deadline of the process is
 * watched by one `AbortSignal.timeout`, armed for the earliest. A model call's
 * timeout then costs a set entry, not a timer. Why not `setTimeout`: Deno
 * 2.9's global timers are Node-compatible and load on first use (about 5 ms
 * and 4 MB of a fresh process that needs no other timer); why not a timeout
 * signal per call: it cannot be cleared, so each would stay in memory until it
 * fired (minutes after the call).
 *
 * @module
 */

import { MAX_TIMER_MS } from "./sleep.ts";

interface Deadline {
  /** When it expires, on the `performance.now()` clock. */
  at: number;
  expire: () => void;
}

const pending = new Set<Deadline>();
/** The one timer: a timeout signal, for `at` (the earliest deadline when it was armed). */
let armed: { at: number; signal: AbortSignal } | null = null;

/**
 * Calls `expire` once `ms` milliseconds have passed, unless the returned
 * function is called first (it forgets the deadline; calling it again is
 * harmless). Like a timer, a pending deadline keeps the process alive.
 *
 * @example
 * ```ts
 * import { watchDeadline } from "./watch_deadline.ts";
 * const forget = watchDeadline(60_000, () => console.log("too late"));
 * forget(); // done in time: nothing is called, nothing keeps the process alive
 * await new Promise<void>((done) => watchDeadline(5, done)); // expires after 5 ms
 * ```
 */
export function watchDeadline(ms: number, expire: () => void): () => void {
  const deadline = { at: performance.now() + Math.max(0, ms), expire };
  pending.add(deadline);
  // An armed timer may have run out unheard (nothing was pending then).
  if (!armed || armed.signal.aborted || deadline.at < armed.at) arm(deadline.at);
  else armed.signal.addEventListener("abort", fire); // a no-op when it listens already
  return () => {
    pending.delete(deadline);
    // Deno keeps a timeout signal's timer alive while it has listeners: with
    // nothing left to watch, the armed timer runs out unheard.
    if (pending.size === 0) armed?.signal.removeEventListener("abort", fire);
  };
}

function arm(at: number): void {
  armed?.signal.removeEventListener("abort", fire);
  const now = performance.now();
  const until = Math.min(at, now + MAX_TIMER_MS);
  // Rounded up, so it rarely fires before the deadline (if it does, `fire` arms again).
  const signal = AbortSignal.timeout(Math.max(0, Math.ceil(until - now)));
  signal.addEventListener("abort", fire);
  armed = { at: until, signal };
}

/** Arms for the next deadline, then expires what is due (an `expire` may watch a new one). */
function fire(): void {
  armed = null;
  const now = performance.now();
  const due: Deadline[] = [];
  let next = Infinity;
  for (const d of pending) {
    if (d.at <= now) {
      pending.delete(d);
      due.push(d);
    } else if (d.at < next) next = d.at;
  }
  if (next < Infinity) arm(next);
  for (const d of due) d.expire();
}
