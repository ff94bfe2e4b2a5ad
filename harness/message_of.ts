/**
 * One way to word a thrown value, whatever was thrown.
 *
 * @module
 */
/**
 * The message of a thrown value, for a reason, a log line or an HTTP answer:
 * an Error's message (its name when the message is empty), a string as is,
 * anything else as JSON (or `String()` when JSON has no text for it).
 *
 * @example
 * ```ts
 * import { messageOf } from "./message_of.ts";
 * console.log(messageOf(new Error("boom")), messageOf("plain"), messageOf({ code: 7 }));
 * // boom plain {"code":7}
 * ```
 */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e); // a BigInt, a cycle
  }
}
