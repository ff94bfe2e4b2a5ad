/**
 * The words of a chat-completions message (or stream delta): those it shows
 * (its `content`, a string or content parts) and those it writes unseen and
 * is billed for all the same (a reasoning model's reasoning and `thinking`
 * parts), for counting a reply's tokens locally.
 *
 * @module
 */
import { isObject } from "../harness/is_object.ts";

/** A value's text as the model wrote it: a string as it is, anything else as JSON. */
export function readable(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);
}

/**
 * The text of a message's (or a stream delta's) `content`: a string as it
 * is; content parts (as Mistral's reasoning models send them) as their
 * `text` parts joined (null without one), a `thinking` part being no
 * answer; absent, null; any other value undefined (malformed).
 *
 * @example
 * ```ts
 * import { contentText } from "./reply_words.ts";
 * const parts = [{ type: "thinking", thinking: [] }, { type: "text", text: "42" }];
 * console.log(contentText(parts), contentText(null), contentText(7)); // 42 null undefined
 * ```
 */
export function contentText(content: unknown): string | null | undefined {
  if (content === undefined || content === null) return null;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text: string | null = null;
  for (const part of content) {
    if (!isObject(part) || typeof part["type"] !== "string") return undefined;
    if (part["type"] !== "text") continue;
    if (typeof part["text"] !== "string") return undefined;
    text = (text ?? "") + part["text"];
  }
  return text;
}

/**
 * The words a message (or stream delta) writes beside its answer, billed as
 * reply tokens though not shown (`""` for none): its reasoning, as
 * `reasoning_content` (DeepSeek) or else `reasoning` (vLLM, OpenRouter,
 * Ollama; a server that sends both sends the same words), and the text of
 * its content parts other than text (Mistral's `thinking`).
 *
 * @example
 * ```ts
 * import { unseenText } from "./reply_words.ts";
 * const delta = { content: [{ type: "thinking", thinking: [{ type: "text", text: "Hm." }] }] };
 * console.log(unseenText(delta), unseenText({ reasoning: "First," })); // Hm. First,
 * ```
 */
export function unseenText(m: Record<string, unknown>): string {
  const reasoning = reasoningText(m);
  const content = m["content"];
  if (!Array.isArray(content)) return reasoning;
  let text = reasoning;
  for (const part of content) {
    if (isObject(part) && part["type"] !== "text") text += partWords(part);
  }
  return text;
}

/** The reasoning part of {@link unseenText}: `reasoning_content`, else `reasoning` (`""` for none). */
export function reasoningText(m: Record<string, unknown>): string {
  return readable(m["reasoning_content"]) || readable(m["reasoning"]);
}

/** A part's words: its `thinking` (a text, or text parts), else the part as JSON. */
function partWords(part: Record<string, unknown>): string {
  const thinking = part["thinking"];
  if (typeof thinking === "string") return thinking;
  if (!Array.isArray(thinking)) return JSON.stringify(part);
  let text = "";
  for (const p of thinking) {
    text += isObject(p) && typeof p["text"] === "string" ? p["text"] : readable(p);
  }
  return text;
}
