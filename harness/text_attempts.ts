/**
 * Streamed text across retried attempts of one model call: the model adapters
 * report text through this, and call `retrying()` before each new attempt, so
 * the request's `onReset` is called when (and only when) an attempt that
 * already showed words is abandoned.
 *
 * @module
 */
import type { ModelRequest } from "./model.ts";

/** The `onText` to pass to an attempt, and the hook to call before a retry. */
export interface AttemptText {
  /** The request's `onText`, noting that text was shown (undefined when it has none). */
  onText?: ((delta: string) => void) | undefined;
  /** Before a retried attempt: resets the watchers if the last attempt showed text. */
  retrying(): void;
}

/**
 * Wraps the request's `onText`/`onReset` for a call that may be retried. A
 * watcher that throws is ignored: the deltas are for watching, not the call.
 *
 * @example
 * ```ts
 * import { attemptText } from "./text_attempts.ts";
 * const seen: string[] = [];
 * const text = attemptText({
 *   messages: [],
 *   tools: [],
 *   onText: (d) => seen.push(d),
 *   onReset: () => seen.push("<reset>"),
 * });
 * text.onText?.("Hel");
 * text.retrying();
 * text.retrying(); // nothing shown since the last reset: no second one
 * text.onText?.("Hello.");
 * console.log(seen); // ["Hel", "<reset>", "Hello."]
 * ```
 */
export function attemptText(request: ModelRequest): AttemptText {
  const { onText, onReset } = request;
  // Nobody watches (no trace, or a plain call): nothing to note, every call.
  if (!onText) return UNWATCHED;
  let shown = false;
  return {
    onText: (delta) => {
      if (!delta) return;
      shown = true;
      try {
        onText(delta);
      } catch { /* a watcher's failure is not the call's */ }
    },
    retrying() {
      if (!shown) return;
      shown = false;
      try {
        onReset?.();
      } catch { /* as above */ }
    },
  };
}

const UNWATCHED: AttemptText = { onText: undefined, retrying() {} };
