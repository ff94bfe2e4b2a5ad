import {
  ModelError
} from "./chunk-harness_errors.js";

// harness/tokens.ts
var TOKENS_PER_MESSAGE = 3;
var TOKENS_PER_TOOL_CALL = 3;
var TOKENS_PER_TOOL = 3;
var REPLY_PRIMING_TOKENS = 3;
var codec;
var loading;
var PLAIN = {
  allowedSpecial: /* @__PURE__ */ new Set(),
  disallowedSpecial: /* @__PURE__ */ new Set()
};
var loadTokenizer = (function loadTokenizer() {
  return loading ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => {
    codec = {
      encode: (text) => m.encode(text, PLAIN),
      decode: (tokens) => m.decode(tokens)
    };
  }, (e) => {
    loading = void 0;
    throw e;
  });
});
var tokenizerLoaded = (function tokenizerLoaded() {
  return codec !== void 0;
});
var enc = (function enc() {
  if (codec) return codec;
  throw new Error("the o200k_base tokenizer is not loaded: await loadTokenizer() before counting");
});
var longRun;
var SLICE = 8;
var encodeSafe = (function encodeSafe(text) {
  if (text.length < 64) return enc().encode(text);
  const out = [];
  const add = (part) => {
    for (const t of enc().encode(part)) out.push(t);
  };
  let last = 0;
  longRun ??= /[\p{L}\p{M}]{64,}|[^\s\p{L}\p{M}\p{N}]{64,}|\s{64,}/gu;
  for (const m of text.matchAll(longRun)) {
    if (m.index > last) add(text.slice(last, m.index));
    for (let i = 0, end = 0; i < m[0].length; i = end) {
      end = i + SLICE;
      if (end < m[0].length && /[\ud800-\udbff]/.test(m[0][end - 1])) end -= 1;
      add(m[0].slice(i, end));
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) add(text.slice(last));
  return out;
});
var MIN_CACHED_LENGTH = 32;
var MAX_CACHED_CHARS = 16e6;
var stringCache = /* @__PURE__ */ new Map();
var cachedChars = 0;
var countTokens = (function countTokens(text) {
  if (text.length === 0) return 0;
  if (text.length < MIN_CACHED_LENGTH) return enc().encode(text).length;
  const hit = stringCache.get(text);
  if (hit !== void 0) return hit;
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
});
var tokenCount = (function tokenCount(n) {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : void 0;
});
var truncateToTokens = (function truncateToTokens(text, maxTokens) {
  if (maxTokens <= 0) return "";
  const tokens = encodeSafe(text);
  if (tokens.length <= maxTokens) return text;
  for (let n = maxTokens; n > 0; n--) {
    const prefix = enc().decode(tokens.slice(0, n));
    if (text.startsWith(prefix) && countTokens(prefix) <= maxTokens) return prefix;
  }
  return "";
});
var toolCallsTokens = (function toolCallsTokens(calls) {
  let n = 0;
  for (const call of calls ?? []) {
    n += TOKENS_PER_TOOL_CALL + countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return n;
});
var messageCache = /* @__PURE__ */ new WeakMap();
var toolCache = /* @__PURE__ */ new WeakMap();
var countMessageTokens = (function countMessageTokens(message) {
  const toolCalls = message.role === "assistant" ? message.tool_calls : void 0;
  const cached = messageCache.get(message);
  if (cached && cached.content === message.content && cached.toolCalls === toolCalls && cached.toolCallCount === (toolCalls?.length ?? 0)) {
    return cached.tokens;
  }
  const tokens = TOKENS_PER_MESSAGE + countTokens(message.role) + countTokens(message.content ?? "") + toolCallsTokens(toolCalls);
  messageCache.set(message, {
    content: message.content,
    toolCalls,
    toolCallCount: toolCalls?.length ?? 0,
    tokens
  });
  return tokens;
});
var countToolTokens = (function countToolTokens(tool) {
  const cached = toolCache.get(tool);
  if (cached !== void 0) return cached;
  const fn = tool.function;
  const tokens = TOKENS_PER_TOOL + countTokens(fn.name) + countTokens(fn.description ?? "") + countTokens(JSON.stringify(fn.parameters ?? {}));
  toolCache.set(tool, tokens);
  return tokens;
});
var countPromptTokens = (function countPromptTokens(messages, tools) {
  let n = REPLY_PRIMING_TOKENS;
  for (const message of messages) n += countMessageTokens(message);
  for (const tool of tools ?? []) n += countToolTokens(tool);
  return n;
});
var countCompletionTokens = (function countCompletionTokens(message) {
  return countTokens(message.content ?? "") + toolCallsTokens(message.tool_calls);
});

// harness/context_errors.ts
var CONTEXT_LENGTH = /context_length_exceeded|maximum context length|prompt is too long|context (?:window|size|length)|exceeds the maximum number of (?:input )?tokens/i;
var saysContextLength = (function saysContextLength(text) {
  return typeof text === "string" && CONTEXT_LENGTH.test(text);
});
var isContextLengthError = (function isContextLengthError(e) {
  return e instanceof ModelError && e.kind === "context_length";
});

export {
  loadTokenizer,
  tokenizerLoaded,
  countTokens,
  tokenCount,
  truncateToTokens,
  countMessageTokens,
  countPromptTokens,
  countCompletionTokens,
  saysContextLength,
  isContextLengthError
};
