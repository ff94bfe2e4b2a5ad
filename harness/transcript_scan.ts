/**
 * One way to read a transcript incrementally. A run's transcript only grows,
 * and several things are asked of it before every model call (the call ids
 * used, whether a call was renamed, the turns since the person's last
 * message): each is folded from the messages once, kept per transcript array,
 * and extended by the messages added since the last look.
 *
 * @module
 */
import type { ChatMessage } from "./messages.ts";

/** How far a transcript was read, and what was folded from it. */
interface Scan<V> {
  read: number;
  last: ChatMessage | undefined;
  value: V;
}

/** What a {@link TranscriptScan} folds, and when its fold no longer holds. */
export interface ScanSpec<V, C> {
  /** The value of an empty transcript. */
  start(): V;
  /** Folds message `index` into `value` (mutating it). */
  step(value: V, message: ChatMessage, index: number, context: C): void;
  /** Whether `value`, folded from the first `read` messages, must be read afresh. */
  stale?(value: V, read: number, context: C): boolean;
}

/**
 * An incremental fold over transcripts (see the module doc). A transcript
 * cut shorter, or whose last message read was replaced (a fork, a state built
 * by hand), is read afresh, as is one `spec.stale` rejects.
 *
 * @example
 * ```ts
 * import { TranscriptScan } from "./transcript_scan.ts";
 * import type { ChatMessage } from "./messages.ts";
 * const replies = new TranscriptScan<{ n: number }, void>({
 *   start: () => ({ n: 0 }),
 *   step: (v, m) => void (m.role === "assistant" && v.n++),
 * });
 * const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
 * messages.push({ role: "assistant", content: "hello" });
 * console.log(replies.of(messages, undefined).n); // 1
 * messages.push({ role: "user", content: "more" }, { role: "assistant", content: "sure" });
 * console.log(replies.of(messages, undefined).n); // 2 (two messages read, not four)
 * ```
 */
export class TranscriptScan<V, C = void> {
  #scans = new WeakMap<readonly ChatMessage[], Scan<V>>();
  #spec: ScanSpec<V, C>;

  /** A scan folding transcripts as `spec` says. */
  constructor(spec: ScanSpec<V, C>) {
    this.#spec = spec;
  }

  /** The fold of `messages`, reading only what was added since the last look. */
  of(messages: readonly ChatMessage[], context: C): V {
    const spec = this.#spec;
    let s = this.#scans.get(messages);
    if (
      !s || messages.length < s.read || messages[s.read - 1] !== s.last ||
      spec.stale?.(s.value, s.read, context)
    ) {
      s = { read: 0, last: undefined, value: spec.start() };
      this.#scans.set(messages, s);
    }
    for (; s.read < messages.length; s.read++) {
      const m = messages[s.read]!;
      spec.step(s.value, m, s.read, context);
      s.last = m;
    }
    return s.value;
  }
}
