/**
 * A provider's "your prompt is longer than my context window" error,
 * recognised in the words providers use, so a run with a context policy can
 * compact and ask again instead of failing.
 *
 * @module
 */
import { ModelError } from "./errors.ts";

// OpenAI `context_length_exceeded` ("maximum context length is N tokens"),
// Anthropic "prompt is too long", Gemini "exceeds the maximum number of tokens",
// vLLM / llama.cpp "context window", "exceeds the context size".
const CONTEXT_LENGTH =
  /context_length_exceeded|maximum context length|prompt is too long|context (?:window|size|length)|exceeds the maximum number of (?:input )?tokens/i;

/**
 * Whether an error body or message says the prompt did not fit the model's window.
 *
 * @example
 * ```ts
 * import { saysContextLength } from "./context_errors.ts";
 * console.log(saysContextLength('{"error":{"code":"context_length_exceeded"}}')); // true
 * console.log(saysContextLength("Rate limit reached")); // false
 * ```
 */
export function saysContextLength(text: string | undefined | null): boolean {
  return typeof text === "string" && CONTEXT_LENGTH.test(text);
}

/**
 * Whether `e` is a model call refused because the prompt is too long.
 *
 * @example
 * ```ts
 * import { isContextLengthError } from "./context_errors.ts";
 * import { ModelError } from "./errors.ts";
 * console.log(isContextLengthError(new ModelError("context_length", "too long", 400))); // true
 * ```
 */
export function isContextLengthError(e: unknown): boolean {
  return e instanceof ModelError && e.kind === "context_length";
}
