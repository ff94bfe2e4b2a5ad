/**
 * Validating an OpenAI-compatible chat-completions reply (a JSON body, or one
 * assembled from a stream) into a `ModelReply`: every field checked, usage
 * counted locally when the endpoint sends none, cached prompt tokens read.
 *
 * @module
 */
import type { AssistantMessage, CallUsage, ToolCall } from "../harness/messages.ts";
import type { ModelReply, ModelRequest } from "../harness/model.ts";
import { ModelError } from "../harness/errors.ts";
import { countCompletionTokens, countPromptTokens, loadTokenizer } from "../harness/tokens.ts";
import { cutText } from "../harness/text.ts";

/** A plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The error of a reply that breaks the protocol. */
export function malformed(url: string, redact: (text: string) => string) {
  return (what: string) =>
    new ModelError("malformed", `Malformed reply from ${url}: ${redact(what)}`);
}

/** Validates a chat-completions reply body (text) into a `ModelReply`. */
export function parseReply(
  text: string,
  url: string,
  request: ModelRequest,
  redact: (text: string) => string,
): Promise<ModelReply> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const bad = malformed(url, redact);
    return Promise.reject(
      bad(`body is not JSON: ${JSON.stringify(cutText(redact(text), 200))}`),
    );
  }
  return parseBody(body, url, request, redact);
}

/** Validates a chat-completions reply body (parsed, or assembled from a stream). */
export async function parseBody(
  body: unknown,
  url: string,
  request: ModelRequest,
  redact: (text: string) => string,
): Promise<ModelReply> {
  const bad = malformed(url, redact);
  if (!isObject(body)) throw bad("body is not a JSON object");
  if (!Array.isArray(body.choices) || body.choices.length === 0) throw bad("no choices");
  const choice = body.choices[0];
  if (!isObject(choice) || !isObject(choice.message)) throw bad("choices[0] has no message");
  const raw = choice.message;
  let content: string | null;
  if (raw.content === undefined || raw.content === null) content = null;
  else if (typeof raw.content === "string") content = raw.content;
  else throw bad("choices[0].message.content is not a string");
  const message: AssistantMessage = { role: "assistant", content };
  const calls = parseToolCalls(raw.tool_calls, bad);
  if (calls.length > 0) message.tool_calls = calls;
  const usage = body.usage === undefined || body.usage === null
    ? await countedUsage(request, message)
    : parseUsage(body.usage, bad);
  const finishReason = typeof choice.finish_reason === "string"
    ? choice.finish_reason
    : message.tool_calls
    ? "tool_calls"
    : "stop";
  const reply: ModelReply = { message, usage, finishReason };
  if (typeof body.model === "string") reply.model = body.model;
  return reply;
}

/** The message's tool calls (none when absent). */
function parseToolCalls(raw: unknown, bad: (what: string) => ModelError): ToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw bad("choices[0].message.tool_calls is not an array");
  return raw.map((c: unknown, i: number): ToolCall => {
    const at = `choices[0].message.tool_calls[${i}]`;
    if (!isObject(c)) throw bad(`${at} is not an object`);
    // A missing id is not fatal: the loop names the call (see harness/call_ids.ts).
    if (c.id !== undefined && c.id !== null && typeof c.id !== "string") {
      throw bad(`${at}.id is not a string`);
    }
    const id = typeof c.id === "string" ? c.id : "";
    if (!isObject(c.function)) throw bad(`${at}.function is missing`);
    const { name, arguments: args } = c.function;
    if (typeof name !== "string" || !name) throw bad(`${at}.function.name is missing`);
    if (isObject(args)) return fn(id, name, JSON.stringify(args));
    if (typeof args !== "string") throw bad(`${at}.function.arguments is not a string`);
    return fn(id, name, args);
  });
}

/** The usage of a reply that reports none, counted locally. */
async function countedUsage(request: ModelRequest, message: AssistantMessage): Promise<CallUsage> {
  await loadTokenizer(); // only an endpoint that reports no usage makes us count
  return {
    prompt_tokens: countPromptTokens(request.messages, request.tools),
    completion_tokens: countCompletionTokens(message),
  };
}

/** The usage a reply reports, validated (synchronous: the common case awaits nothing). */
function parseUsage(raw: unknown, bad: (what: string) => ModelError): CallUsage {
  if (!isObject(raw)) throw bad("usage is not an object");
  for (const k of ["prompt_tokens", "completion_tokens"] as const) {
    const n = raw[k];
    // Safe integers only: a count like 1e308 would make the cost Infinity.
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
      throw bad(`usage.${k} is not a non-negative integer (got ${JSON.stringify(n)})`);
    }
  }
  const usage: CallUsage = {
    prompt_tokens: raw.prompt_tokens as number,
    completion_tokens: raw.completion_tokens as number,
  };
  const cached = cachedTokens(raw);
  if (cached !== undefined) usage.cached_prompt_tokens = cached;
  return usage;
}

/**
 * Prompt tokens served from the cache: OpenAI's `prompt_tokens_details.cached_tokens`
 * (DeepSeek-style `prompt_cache_hit_tokens` too). A malformed count is ignored, not
 * fatal: it only makes the cost a little higher.
 */
function cachedTokens(usage: Record<string, unknown>): number | undefined {
  const details = usage.prompt_tokens_details;
  const n = isObject(details) ? details.cached_tokens : usage.prompt_cache_hit_tokens;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function fn(id: string, name: string, args: string): ToolCall {
  return { id, type: "function", function: { name, arguments: args } };
}
