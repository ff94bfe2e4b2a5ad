/**
 * Cutting text on character boundaries: a cut never splits a surrogate pair
 * (an emoji is two UTF-16 code units), so a shortened text stays well formed.
 *
 * @module
 */

/**
 * The first `max` UTF-16 code units of `text` or one fewer, so that the cut
 * never falls between the two halves of a surrogate pair.
 *
 * @example
 * ```ts
 * import { cutText } from "./text.ts";
 * console.log(cutText("ab😀", 3)); // "ab"
 * ```
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let n = Math.max(0, Math.floor(max));
  const code = text.charCodeAt(n - 1);
  // A high surrogate as the last unit kept: its low half would be cut off.
  if (n > 0 && code >= 0xd800 && code <= 0xdbff) n -= 1;
  return text.slice(0, n);
}
