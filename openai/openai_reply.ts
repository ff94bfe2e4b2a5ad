/**
 * Validating an OpenAI-compatible chat-completions reply (a JSON body, or one
 * assembled from a stream) into a `ModelReply`: every field checked, usage
 * counted locally when the endpoint sends none, cached prompt tokens read.
 *
 * A 2xx reply refused as malformed was taken by the provider, which may have
 * billed it: when the body looks like the provider's answer (a JSON object,
 * or a text that begins like one, cut or garbled on the way), the error
 * carries it as a lost reply, for the loop to count as an estimate.
 *
 * @module
 */
import type { AssistantMessage, CallUsage, ToolCall } from "../harness/messages.ts";
import type { LostReply, ModelReply, ModelRequest } from "../harness/model.ts";
import { ModelError } from "../harness/errors.ts";
import {
  countCompletionTokens,
  countPromptTokens,
  countTokens,
  loadTokenizer,
  tokenCount,
} from "../harness/tokens.ts";
import { cutText } from "../harness/text.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../harness/cost.ts";
import { contentText, readable, reasoningText, unseenText } from "./reply_words.ts";
import { isObject } from "../harness/is_object.ts";

/** The error of a reply that breaks the protocol (with the replies it lost, if any). */
export function malformed(url: string, redact: (text: string) => string) {
  return (what: string, lost: readonly LostReply[] = []) =>
    new ModelError("malformed", redact(`Malformed reply from ${url}: ${what}`), undefined, lost);
}

/**
 * Whether a body (or stream chunk) is the provider's error where its reply
 * was due: an `error` that says something (an object or array, or a
 * non-empty text), and no choice beside it.
 */
export function isReportedError(body: Record<string, unknown>): boolean {
  const error = body["error"];
  const said = isObject(error) || Array.isArray(error) || (typeof error === "string" && !!error);
  const choices = body["choices"];
  return said && !(Array.isArray(choices) && choices.length > 0);
}

/**
 * The error of a body or stream chunk that {@link isReportedError}: its
 * message, cut, the whole redacted (a secret may sit in the URL too). It
 * wrote no reply: it counts only what it says it spent, its usage where both
 * counts are counts.
 */
export function reported(url: string, redact: (text: string) => string) {
  return (body: Record<string, unknown>): ModelError => {
    const error = body["error"];
    const text = isObject(error) && typeof error["message"] === "string" ? error["message"] : "";
    const said = text || (typeof error === "string" ? error : JSON.stringify(error));
    const message = redact(`Error reported by ${url}: ${cutText(said, 200)}`);
    return new ModelError("server", message, undefined, spentAsReported(body));
  };
}

/** What a body that is no reply says it spent (a partial count is no count: nothing). */
function spentAsReported(body: Record<string, unknown>): LostReply[] {
  const usage = isObject(body["usage"]) ? body["usage"] : {};
  const completion = tokenCount(usage["completion_tokens"]);
  const prompt = tokenCount(usage["prompt_tokens"]);
  if (completion === undefined || prompt === undefined) return [];
  const reason = "the provider reported an error, and usage";
  return [{ completion_tokens: completion, prompt_tokens: prompt, reason }];
}

/**
 * Reply tokens estimated at 4 characters a token: for a text too long to count
 * with the tokenizer (tens of MB would hold the isolate for seconds), or too
 * garbled to read. At most the reply the call asked for (`maxTokens`, else
 * the usual `max_tokens` cap): 32 MB of garbage is no 8-million-token reply.
 */
export function roughTokens(chars: number, maxTokens: number | undefined): number {
  return Math.min(Math.ceil(chars / 4), maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
}

/**
 * The reply tokens of a body (partial, or refused as malformed) counted
 * locally (o200k) from whatever of `choices[0].message` can be read: its
 * content, refusal and reasoning, and its tool calls' names and arguments.
 */
export async function readableReplyTokens(body: Record<string, unknown>): Promise<number> {
  const choice = Array.isArray(body["choices"]) ? body["choices"][0] : undefined;
  const raw = isObject(choice) && isObject(choice["message"]) ? choice["message"] : {};
  const calls = Array.isArray(raw["tool_calls"]) ? raw["tool_calls"] : [];
  const text = contentText(raw["content"]);
  // Reasoning and thinking too: the provider bills them. Malformed content counts as its
  // JSON (its parts, thinking ones too, with it).
  const words = text === undefined
    ? readable(raw["content"]) + reasoningText(raw)
    : (text ?? "") + unseenText(raw);
  const message: AssistantMessage = {
    role: "assistant",
    content: words + readable(raw["refusal"]) || null,
    tool_calls: calls.map((c: unknown): ToolCall => {
      const f = isObject(c) && isObject(c["function"]) ? c["function"] : {};
      return fn("", readable(f["name"]), readable(f["arguments"]));
    }),
  };
  await loadTokenizer();
  return countCompletionTokens(message);
}

/**
 * What a reply is checked with: the client's error builders and redactor,
 * made once per client (not per reply).
 */
export interface ReplyCheck {
  /** Builds the error of a malformed reply (`malformed(url, redact)`). */
  bad: (what: string, lost?: readonly LostReply[]) => ModelError;
  /** Builds the error a provider reports in a reply's place (`reported(url, redact)`). */
  reported: (body: Record<string, unknown>) => ModelError;
  /** Replaces every secret in a text with `[redacted]`. */
  redact: (text: string) => string;
}

/** Validates a chat-completions reply body (text) into a `ModelReply`. */
export function parseReply(
  text: string,
  request: ModelRequest,
  check: ReplyCheck,
): Promise<ModelReply> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const what = "body is not JSON";
    const lost = lostIfBegun(text, text.length, request.maxTokens, what);
    return Promise.reject(
      check.bad(`${what}: ${JSON.stringify(cutText(check.redact(text), 200))}`, lost),
    );
  }
  return parseBody(body, request, check);
}

/**
 * A 2xx body refused unread or unparsed (`what`), as lost replies: one,
 * estimated roughly from its `chars`, when it begins (`head`) like a JSON
 * object, the provider's reply cut or garbled on the way. Anything else (a
 * proxy's HTML page, an empty body) most likely never reached the provider:
 * none.
 */
export function lostIfBegun(
  head: string,
  chars: number,
  maxTokens: number | undefined,
  what: string,
): LostReply[] {
  if (!/^\s*\{/.test(head)) return [];
  return [{ completion_tokens: roughTokens(chars, maxTokens), reason: lostReason(what) }];
}

/** Why a malformed reply is counted as lost. */
function lostReason(what: string): string {
  return `the reply was malformed: ${what}`;
}

/**
 * Validates a chat-completions reply body (parsed, or assembled from a
 * stream). A JSON object refused carries its reply as lost (see the module
 * doc); any other JSON value is no chat completion, and counts nothing.
 */
export function parseBody(
  body: unknown,
  request: ModelRequest,
  check: ReplyCheck,
): Promise<ModelReply> {
  if (!isObject(body)) return Promise.reject(check.bad("body is not a JSON object"));
  if (isReportedError(body)) return Promise.reject(check.reported(body));
  // Every reply passes here: checked at once (no async frame) unless its usage must be counted.
  try {
    const reply = validReply(body, request);
    return reply instanceof Promise
      ? reply.catch((e: unknown) => asMalformed(e, body, check))
      : Promise.resolve(reply);
  } catch (e) {
    return asMalformed(e, body, check);
  }
}

/** The malformed reply's error, carrying it as lost (any other failure as it is). */
async function asMalformed(
  e: unknown,
  body: Record<string, unknown>,
  check: ReplyCheck,
): Promise<never> {
  if (!(e instanceof BadReply)) throw e;
  throw check.bad(e.what, [await lostOf(body, check.redact(e.what))]);
}

/** What {@link validReply} throws for a body that breaks the protocol (parseBody words it). */
class BadReply {
  constructor(readonly what: string) {}
}

/**
 * A refused reply object as lost: the usage it reports where it is a count,
 * else its reply tokens counted from what can be read.
 */
async function lostOf(body: Record<string, unknown>, what: string): Promise<LostReply> {
  const usage = isObject(body["usage"]) ? body["usage"] : {};
  const lost: LostReply = {
    completion_tokens: tokenCount(usage["completion_tokens"]) ?? await readableReplyTokens(body),
    reason: lostReason(what),
  };
  const prompt = tokenCount(usage["prompt_tokens"]);
  if (prompt !== undefined) lost.prompt_tokens = prompt;
  return lost;
}

/**
 * The reply a body holds, every field checked (a field that fails: a thrown
 * `BadReply`); a promise only when its usage must be counted locally.
 */
function validReply(
  body: Record<string, unknown>,
  request: ModelRequest,
): ModelReply | Promise<ModelReply> {
  if (!Array.isArray(body["choices"]) || body["choices"].length === 0) {
    throw new BadReply("no choices");
  }
  const choice = body["choices"][0];
  if (!isObject(choice) || !isObject(choice["message"])) {
    throw new BadReply("choices[0] has no message");
  }
  const raw = choice["message"];
  const text = contentText(raw["content"]);
  if (text === undefined) {
    throw new BadReply("choices[0].message.content is not a string or text parts");
  }
  // A refusal (OpenAI's structured outputs) is the model's answer in words: kept as its text.
  const refusal = typeof raw["refusal"] === "string" ? raw["refusal"] : "";
  const content = refusal ? (text ?? "") + refusal : text;
  const message: AssistantMessage = { role: "assistant", content };
  const calls = parseToolCalls(raw["tool_calls"]);
  if (calls.length > 0) message.tool_calls = calls;
  const stated = body["usage"] === undefined || body["usage"] === null
    ? undefined
    : parseUsage(body["usage"]);
  const given = typeof choice["finish_reason"] === "string" ? choice["finish_reason"] : undefined;
  // A refusal ends a reply `content_filter` (as the AI SDK and OpenTelemetry name it),
  // unless the provider said more (`length`, `tool_calls`).
  const finishReason = refusal && (given === undefined || given === "stop")
    ? "content_filter"
    : given ?? (message.tool_calls ? "tool_calls" : "stop");
  const model = typeof body["model"] === "string" ? body["model"] : undefined;
  if (stated) return replyOf(message, stated, finishReason, model);
  return countedUsage(request, message, unseenText(raw))
    .then((usage) => replyOf(message, usage, finishReason, model));
}

function replyOf(
  message: AssistantMessage,
  usage: CallUsage,
  finishReason: string,
  model: string | undefined,
): ModelReply {
  const reply: ModelReply = { message, usage, finishReason };
  if (model !== undefined) reply.model = model;
  return reply;
}

/** The message's tool calls (none when absent). */
function parseToolCalls(raw: unknown): ToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new BadReply("choices[0].message.tool_calls is not an array");
  return raw.map((c: unknown, i: number): ToolCall => {
    const at = `choices[0].message.tool_calls[${i}]`;
    if (!isObject(c)) throw new BadReply(`${at} is not an object`);
    // A missing id is not fatal: the loop names the call (see harness/call_ids.ts).
    if (c["id"] !== undefined && c["id"] !== null && typeof c["id"] !== "string") {
      throw new BadReply(`${at}.id is not a string`);
    }
    const id = typeof c["id"] === "string" ? c["id"] : "";
    if (!isObject(c["function"])) throw new BadReply(`${at}.function is missing`);
    const { name, arguments: args } = c["function"];
    if (typeof name !== "string" || !name) throw new BadReply(`${at}.function.name is missing`);
    if (isObject(args)) return fn(id, name, JSON.stringify(args));
    if (typeof args !== "string") throw new BadReply(`${at}.function.arguments is not a string`);
    return fn(id, name, args);
  });
}

/** The usage of a reply that reports none, counted locally (with the words it did not show). */
async function countedUsage(
  request: ModelRequest,
  message: AssistantMessage,
  unseen: string,
): Promise<CallUsage> {
  await loadTokenizer(); // only an endpoint that reports no usage makes us count
  return {
    prompt_tokens: countPromptTokens(request.messages, request.tools),
    completion_tokens: countCompletionTokens(message) + (unseen ? countTokens(unseen) : 0),
  };
}

/** The usage a reply reports, validated (synchronous: the common case awaits nothing). */
function parseUsage(raw: unknown): CallUsage {
  if (!isObject(raw)) throw new BadReply("usage is not an object");
  for (const k of ["prompt_tokens", "completion_tokens"] as const) {
    const n = raw[k];
    if (tokenCount(n) === undefined) {
      throw new BadReply(`usage.${k} is not a non-negative integer (got ${JSON.stringify(n)})`);
    }
  }
  const usage: CallUsage = {
    prompt_tokens: raw["prompt_tokens"] as number,
    completion_tokens: raw["completion_tokens"] as number,
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
  const details = usage["prompt_tokens_details"];
  const n = isObject(details) ? details["cached_tokens"] : usage["prompt_cache_hit_tokens"];
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function fn(id: string, name: string, args: string): ToolCall {
  return { id, type: "function", function: { name, arguments: args } };
}
