/**
 * Real token counts with the `o200k_base` encoding (gpt-tokenizer: the same
 * tokens as js-tiktoken, built in a fraction of the time and memory). The scripted
 * provider reports `usage` with these functions and the harness's hard budget
 * mode counts prompts with them before calling, so both sides agree exactly.
 *
 * The prompt formula (OpenAI-style, documented so the numbers can be checked by hand):
 *
 * ```text
 * prompt     = Σ messages [ 3 + tok(role) + tok(content ?? "")
 *                           + Σ tool_calls (3 + tok(name) + tok(arguments)) ]
 *            + Σ tools    [ 3 + tok(name) + tok(description ?? "")
 *                           + tok(JSON.stringify(parameters ?? {})) ]
 *            + 3                                   (reply priming)
 * completion = tok(content ?? "") + Σ tool_calls (3 + tok(name) + tok(arguments))
 * ```
 *
 * Ids (`tool_call_id`, call ids) and tool message names are not counted, so a
 * transcript counts the same before and after a JSON round trip over the wire.
 *
 * The encoder is loaded on demand: importing this module costs nothing, and a
 * run that needs no local count (soft budget, provider-reported usage) never
 * builds it. Whoever counts first awaits {@link loadTokenizer} (once per
 * process); the counting functions stay synchronous after that.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolCall, ToolDefinition } from "./messages.ts";

/** Fixed tokens per message (message framing). */
export const TOKENS_PER_MESSAGE = 3;
/** Fixed tokens per tool call (call framing), in prompts and completions alike. */
export const TOKENS_PER_TOOL_CALL = 3;
/** Fixed tokens per tool definition. */
export const TOKENS_PER_TOOL = 3;
/** Tokens that prime the reply (`<|start|>assistant<|message|>`). */
export const REPLY_PRIMING_TOKENS = 3;

interface Codec {
  encode(text: string): number[];
  decode(tokens: number[]): string;
}
let codec: Codec | undefined;
let loading: Promise<void> | undefined;
/** Special-token markers are plain text here, never rejected. */
const PLAIN = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * Loads the `o200k_base` encoder (once per process; later calls return at once).
 * Await it before the first count: the counting functions throw until it is loaded.
 *
 * @example
 * ```ts
 * import { countTokens, loadTokenizer } from "./tokens.ts";
 * await loadTokenizer();
 * console.log(countTokens("hello world")); // 2
 * ```
 */
export function loadTokenizer(): Promise<void> {
  return loading ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => {
    codec = { encode: (text) => m.encode(text, PLAIN), decode: (tokens) => m.decode(tokens) };
  }, (e) => {
    loading = undefined; // a failed load may be retried
    throw e;
  });
}

/**
 * Whether {@link loadTokenizer} has finished (the counting functions may be called).
 *
 * @example
 * ```ts
 * import { tokenizerLoaded } from "./tokens.ts";
 * console.log(typeof tokenizerLoaded()); // "boolean"
 * ```
 */
export function tokenizerLoaded(): boolean {
  return codec !== undefined;
}

function enc(): Codec {
  if (codec) return codec;
  throw new Error("the o200k_base tokenizer is not loaded: await loadTokenizer() before counting");
}

// BPE merging is quadratic in the length of one pre-token. The o200k pattern
// splits letters, digits, punctuation and spaces apart, so only a long run of
// ONE class is one long pre-token ("ab" x 2,500 took 34 s): such runs are
// encoded in 8-character slices. Prose, JSON and code never contain them, so
// their counts are exact. Built on first use: a Unicode-property pattern costs about
// 0.5 ms and 0.3 MB to build, and a run that never counts locally never needs it.
let longRun: RegExp | undefined;
const SLICE = 8;

function encodeSafe(text: string): number[] {
  if (text.length < 64) return enc().encode(text);
  const out: number[] = [];
  const add = (part: string) => {
    for (const t of enc().encode(part)) out.push(t);
  };
  let last = 0;
  longRun ??= /[\p{L}\p{M}]{64,}|[^\s\p{L}\p{M}\p{N}]{64,}|\s{64,}/gu;
  for (const m of text.matchAll(longRun)) {
    if (m.index > last) add(text.slice(last, m.index));
    for (let i = 0, end = 0; i < m[0].length; i = end) {
      end = i + SLICE;
      // Never between the halves of a surrogate pair (an emoji would count as two U+FFFD).
      if (end < m[0].length && /[\ud800-\udbff]/.test(m[0][end - 1]!)) end -= 1;
      add(m[0].slice(i, end));
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) add(text.slice(last));
  return out;
}

// Strings seen before (the provider re-parses the same transcript every turn) are
// looked up instead of re-encoded. FIFO eviction bounds the memory held.
const MIN_CACHED_LENGTH = 32;
const MAX_CACHED_CHARS = 16_000_000;
const stringCache = new Map<string, number>();
let cachedChars = 0;

/**
 * The number of `o200k_base` tokens in `text`. Special-token markers such as
 * `<|endoftext|>` are counted as plain text, never rejected.
 *
 * @example
 * ```ts
 * import { countTokens, loadTokenizer } from "./tokens.ts";
 * await loadTokenizer();
 * console.log(countTokens("hello world")); // 2
 * ```
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length < MIN_CACHED_LENGTH) return enc().encode(text).length;
  const hit = stringCache.get(text);
  if (hit !== undefined) return hit;
  const n = encodeSafe(text).length;
  if (text.length <= MAX_CACHED_CHARS / 4) {
    for (const [key] of stringCache) {
      if (cachedChars + text.length <= MAX_CACHED_CHARS) break;
      stringCache.delete(key);
      cachedChars -= key.length;
    }
    stringCache.set(text, n);
    cachedChars += text.length;
  }
  return n;
}

/**
 * `n` if it is a token count (a non-negative safe integer), else undefined:
 * for counts a provider or a model client reports (some send `NaN`, strings,
 * or `1e308`, which would make a cost `Infinity`).
 *
 * @example
 * ```ts
 * import { tokenCount } from "./tokens.ts";
 * console.log(tokenCount(40), tokenCount("40"), tokenCount(-1)); // 40 undefined undefined
 * ```
 */
export function tokenCount(n: unknown): number | undefined {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The longest prefix of `text` that is at most `maxTokens` tokens long
 * (cut on a token boundary, never inside a character).
 *
 * @example
 * ```ts
 * import { countTokens, loadTokenizer, truncateToTokens } from "./tokens.ts";
 * await loadTokenizer();
 * const cut = truncateToTokens("one two three four five", 2);
 * console.log(cut, countTokens(cut) <= 2); // "one two" true
 * ```
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const tokens = encodeSafe(text);
  if (tokens.length <= maxTokens) return text;
  for (let n = maxTokens; n > 0; n--) {
    const prefix = enc().decode(tokens.slice(0, n));
    if (text.startsWith(prefix) && countTokens(prefix) <= maxTokens) return prefix;
  }
  return "";
}

function toolCallsTokens(calls: readonly ToolCall[] | undefined): number {
  let n = 0;
  for (const call of calls ?? []) {
    n += TOKENS_PER_TOOL_CALL + countTokens(call.function.name) +
      countTokens(call.function.arguments);
  }
  return n;
}

interface CachedCount {
  content: string | null | undefined;
  toolCalls: readonly ToolCall[] | undefined;
  toolCallCount: number;
  tokens: number;
}
const messageCache = new WeakMap<object, CachedCount>();
const toolCache = new WeakMap<object, number>();

/**
 * The tokens one message adds to a prompt. Cached per message object (a growing
 * transcript is not re-encoded every turn); the cache is dropped if the
 * message's `content` or `tool_calls` were replaced since. Treat counted
 * messages as immutable: edits inside a tool call's `function` are not noticed.
 *
 * @example
 * ```ts
 * import { countMessageTokens, loadTokenizer } from "./tokens.ts";
 * await loadTokenizer();
 * console.log(countMessageTokens({ role: "user", content: "hello world" })); // 6
 * ```
 */
export function countMessageTokens(message: ChatMessage): number {
  const toolCalls = message.role === "assistant" ? message.tool_calls : undefined;
  const cached = messageCache.get(message);
  if (
    cached && cached.content === message.content && cached.toolCalls === toolCalls &&
    cached.toolCallCount === (toolCalls?.length ?? 0)
  ) {
    return cached.tokens;
  }
  const tokens = TOKENS_PER_MESSAGE + countTokens(message.role) +
    countTokens(message.content ?? "") + toolCallsTokens(toolCalls);
  messageCache.set(message, {
    content: message.content,
    toolCalls,
    toolCallCount: toolCalls?.length ?? 0,
    tokens,
  });
  return tokens;
}

/**
 * The tokens one tool definition adds to a prompt (cached per definition object).
 *
 * @example
 * ```ts
 * import { countToolTokens, loadTokenizer } from "./tokens.ts";
 * await loadTokenizer();
 * countToolTokens({
 *   type: "function",
 *   function: { name: "list_files", description: "List files.", parameters: { type: "object" } },
 * });
 * ```
 */
export function countToolTokens(tool: ToolDefinition): number {
  const cached = toolCache.get(tool);
  if (cached !== undefined) return cached;
  const fn = tool.function;
  const tokens = TOKENS_PER_TOOL + countTokens(fn.name) + countTokens(fn.description ?? "") +
    countTokens(JSON.stringify(fn.parameters ?? {}));
  toolCache.set(tool, tokens);
  return tokens;
}

/**
 * The prompt tokens of a chat-completions request: every message, every tool
 * definition, plus the reply priming (see the module doc for the formula).
 *
 * @example
 * ```ts
 * import { countPromptTokens, loadTokenizer } from "./tokens.ts";
 * await loadTokenizer();
 * const n = countPromptTokens([
 *   { role: "system", content: "You are terse." },
 *   { role: "user", content: "What is in errors.log?" },
 * ]);
 * console.log(n > 0);
 * ```
 */
export function countPromptTokens(
  messages: readonly ChatMessage[],
  tools?: readonly ToolDefinition[],
): number {
  let n = REPLY_PRIMING_TOKENS;
  for (const message of messages) n += countMessageTokens(message);
  for (const tool of tools ?? []) n += countToolTokens(tool);
  return n;
}

/**
 * The completion tokens of a model reply: its content plus, per tool call,
 * a fixed overhead and the call's name and arguments.
 *
 * @example
 * ```ts
 * import { countCompletionTokens, loadTokenizer } from "./tokens.ts";
 * await loadTokenizer();
 * const n = countCompletionTokens({
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id: "c1", type: "function", function: { name: "list_files", arguments: "{}" } }],
 * });
 * console.log(n); // 3 + tok("list_files") + tok("{}")
 * ```
 */
export function countCompletionTokens(message: AssistantMessage): number {
  return countTokens(message.content ?? "") + toolCallsTokens(message.tool_calls);
}
