/**
 * A `Model` backed by any OpenAI-compatible `POST /chat/completions` endpoint,
 * with bounded retries (429, 5xx, network errors, timeouts, streams cut
 * short), abort support, streaming (with a fallback for endpoints that do not
 * stream) and strict validation of the reply.
 *
 * @module
 */
import type { LostReply, Model, ModelReply, ModelRequest } from "../harness/model.ts";
import { providerName } from "./provider_name.ts";
import { ModelError } from "../harness/errors.ts";
import { sleep } from "../harness/sleep.ts";
import { attemptText } from "../harness/text_attempts.ts";
import { toWire } from "../harness/call_ids.ts";
import { attempt, type AttemptConfig } from "./openai_attempt.ts";
import { malformed, reported } from "./openai_reply.ts";
import type { OutputFormat } from "../harness/output.ts";

/** Options of {@linkcode createOpenAIModel}. */
export interface OpenAIModelOptions {
  /** Endpoint base, e.g. `http://127.0.0.1:8788/v1` (a trailing slash is ignored). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string | undefined;
  /** Model name sent in the request and used for pricing. */
  model: string;
  /** The `fetch` to use (tests pass an in-process fake). Default: global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number | undefined;
  /** Base of the exponential backoff, in ms. Default 250. */
  retryBaseMs?: number | undefined;
  /** Longest wait honoured from a `Retry-After` header, in ms. Default 30000. */
  maxRetryAfterMs?: number | undefined;
  /** Timeout of each attempt (request and body), in ms. Default 120000. */
  timeoutMs?: number | undefined;
  /**
   * Most bytes of one reply body, streamed or not. Default 32 MiB (a reply of
   * 128k tokens streamed one token a chunk is under 30 MB); a longer one is
   * a `malformed` reply, not retried: an endless stream must not take the
   * isolate's memory (Deno Deploy gives 512 MB) and every run it serves.
   */
  maxReplyBytes?: number | undefined;
  /** Extra request headers. */
  headers?: Record<string, string> | undefined;
  /**
   * Who serves the endpoint, for telemetry (`gen_ai.provider.name`). Default:
   * known from the base URL's host (`groq`, `deepseek`, …), else `openai`.
   */
  provider?: string | undefined;
  /**
   * Ask for a streamed reply (`stream: true`, usage in the last chunk) so the
   * request's `onText` sees the text as it arrives. Default true. An endpoint
   * that answers JSON instead, or refuses the stream with a 400 that a plain
   * request does not get, is asked plainly from then on.
   */
  stream?: boolean | undefined;
  /**
   * How a run with an output schema asks this endpoint for it:
   * `json_schema` (default) sends `response_format: { type: "json_schema",
   * json_schema: { name, schema, strict } }` with each request; `tool` is for
   * endpoints that refuse it: the run gives the model a `final_answer` tool instead.
   */
  structuredOutput?: "json_schema" | "tool" | undefined;
}

function atLeastOne(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(
      `createOpenAIModel: ${name} must be an integer of at least 1, got ${value}`,
    );
  }
  return value;
}

function nonNegative(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(
      `createOpenAIModel: ${name} must be a non-negative ${
        integer ? "integer" : "number"
      }, got ${value}`,
    );
  }
  return value;
}

/**
 * A function that replaces every secret in a text (the API key, credential
 * header values) with `[redacted]`, so no error message, stop reason or trace
 * ever carries one, even when an endpoint echoes the request's headers back.
 */
function redactor(options: OpenAIModelOptions): (text: string) => string {
  const secrets = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v !== "string" || v.trim() === "") return;
    secrets.add(v);
    const token = schemeToken(v);
    if (token) secrets.add(token);
  };
  add(options.apiKey);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/auth|key|token|secret|cookie|session|password/i.test(name)) add(value);
  }
  const sorted = [...secrets].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return (text) => text;
  return (text) => sorted.reduce((t, secret) => t.split(secret).join("[redacted]"), text);
}

/**
 * The credential of a `Bearer x` value (also `Basic`, `Token`): a secret that
 * may be echoed alone. Parsed by hand, as `/^\s*(?:bearer|basic|token)\s+(\S+)/i`
 * would: a client's creation runs no regular expression (the first costs a
 * fresh process about 0.2 MB).
 */
function schemeToken(value: string): string | undefined {
  const v = value.trimStart();
  const scheme = SCHEMES.find((s) => v.slice(0, s.length).toLowerCase() === s);
  if (scheme === undefined) return undefined;
  const rest = v.slice(scheme.length);
  const token = rest.trimStart();
  // The scheme must be a word of its own, followed by the credential.
  if (token === rest || token === "") return undefined;
  for (let i = 0; i < token.length; i++) {
    if (token[i]!.trim() === "") return token.slice(0, i);
  }
  return token;
}

const SCHEMES = ["bearer", "basic", "token"];

/**
 * The OpenAI `response_format` that holds a reply to an output format.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { responseFormat } from "./openai_model.ts";
 * import { outputFormat } from "../harness/output.ts";
 * const f = responseFormat(outputFormat(z.object({ line: z.number() })));
 * console.log(f.type, f.json_schema.name, f.json_schema.strict); // json_schema output true
 * ```
 */
export function responseFormat(output: OutputFormat): {
  type: "json_schema";
  json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
} {
  return {
    type: "json_schema",
    json_schema: { name: output.name, schema: output.schema, strict: output.strict },
  };
}

/** The runtime's fetch as this module found it (a later stand-in may ignore signals). */
const RUNTIME_FETCH = globalThis.fetch;

/** The body of a chat-completions request (without the streaming fields). */
function chatPayload(model: string, request: ModelRequest): Record<string, unknown> {
  const payload: Record<string, unknown> = { model, messages: toWire(request.messages) };
  if (request.tools.length > 0) payload["tools"] = request.tools;
  if (request.maxTokens !== undefined) payload["max_tokens"] = request.maxTokens;
  if (request.output) payload["response_format"] = responseFormat(request.output);
  return payload;
}

/**
 * Creates a `Model` that calls `POST {baseUrl}/chat/completions`. 429, 5xx,
 * network errors, per-attempt timeouts and streams cut short (no
 * `finish_reason`, see openai_stream.ts) are retried (honouring `Retry-After`,
 * else exponential backoff with jitter) up to `maxRetries` times; 401/403,
 * other 4xx and a refused connection (nothing listens there) fail at once. Failures throw `ModelError`; an abort of the signal
 * given to `complete()` rejects with its reason and stops all retrying. A
 * reply lost on the way after the provider took the call is reported in the
 * reply's (or the error's) `lost`, for the loop to count as an estimate.
 *
 * @example
 * ```ts
 * import { createOpenAIModel } from "./openai_model.ts";
 * const model = createOpenAIModel({ baseUrl: "http://127.0.0.1:8788/v1", model: "gpt-x" });
 * console.log(model.name); // "gpt-x"
 * ```
 */
export function createOpenAIModel(options: OpenAIModelOptions): Model {
  if (typeof options.baseUrl !== "string" || !options.baseUrl) {
    throw new TypeError("createOpenAIModel: baseUrl must be a non-empty string");
  }
  if (typeof options.model !== "string" || !options.model) {
    throw new TypeError("createOpenAIModel: model must be a non-empty string");
  }
  const retry: RetryPolicy = {
    maxRetries: nonNegative("maxRetries", options.maxRetries ?? 3, true),
    baseMs: nonNegative("retryBaseMs", options.retryBaseMs ?? 250, false),
    maxRetryAfterMs: nonNegative("maxRetryAfterMs", options.maxRetryAfterMs ?? 30_000, false),
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    ...options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    ...options.headers,
  };
  // Remembered per client: an endpoint that does not stream is not asked to every turn.
  const client = { streams: options.stream ?? true };
  const url = `${withoutTrailingSlashes(options.baseUrl)}/chat/completions`;
  const redact = redactor(options);
  const cfg: AttemptConfig = {
    url,
    doFetch: options.fetch ?? globalThis.fetch,
    nativeFetch: (options.fetch ?? globalThis.fetch) === RUNTIME_FETCH,
    timeoutMs: nonNegative("timeoutMs", options.timeoutMs ?? 120_000, false),
    maxReplyBytes: atLeastOne("maxReplyBytes", options.maxReplyBytes ?? 32 * 2 ** 20),
    redact,
    bad: malformed(url, redact),
    reported: reported(url, redact),
    headers,
    streamHeaders: { ...headers, accept: "text/event-stream, application/json" },
    onPlain: () => client.streams = false,
  };
  return {
    name: options.model,
    provider: options.provider ?? providerName(options.baseUrl),
    ...(options.structuredOutput ?? "json_schema") === "json_schema"
      ? { structuredOutput: "json_schema" as const }
      : {},
    complete: (request, signal) => complete(cfg, retry, client, options.model, request, signal),
  };
}

/** How one client retries. */
interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  maxRetryAfterMs: number;
}

/** One call: attempts until a reply, a final error, or the retries are spent. */
async function complete(
  cfg: AttemptConfig,
  retry: RetryPolicy,
  client: { streams: boolean },
  model: string,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<ModelReply> {
  signal.throwIfAborted();
  const payload = chatPayload(model, request);
  // Serialized when first sent: a call sends one form (the other only after a fallback).
  let plain: string | undefined, streamed: string | undefined;
  const bodyOf = (streaming: boolean) =>
    streaming
      ? streamed ??= JSON.stringify({
        ...payload,
        stream: true,
        stream_options: { include_usage: true },
      })
      : plain ??= JSON.stringify(payload);
  let fellBack = false;
  const lost: LostReply[] = [];
  const text = attemptText(request);
  const watched = text.onText ? { ...request, onText: text.onText } : request;
  for (let n = 1;; n++) {
    const streaming = client.streams;
    let outcome;
    if (n > 1) text.retrying();
    try {
      outcome = await attempt(cfg, bodyOf(streaming), signal, watched, streaming);
    } catch (e) {
      // The plain request failed too: the 400 was not about streaming.
      if (fellBack && !streaming) client.streams = true;
      // A 400 may be a refusal to stream: ask once plainly (not a retry).
      if (!streaming || fellBack || !(e instanceof ModelError) || e.status !== 400) {
        throw withLost(e, lost);
      }
      fellBack = true;
      client.streams = false;
      n--;
      continue;
    }
    if ("message" in outcome) return lost.length ? { ...outcome, lost } : outcome;
    if (outcome.lost) lost.push(outcome.lost);
    if (n > retry.maxRetries) {
      const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
      const message = `${outcome.what} after ${attempts}: ${outcome.detail}`;
      throw new ModelError(outcome.kind, message, outcome.status, lost);
    }
    const backoff = retry.baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2);
    await sleep(Math.min(outcome.retryAfterMs ?? backoff, retry.maxRetryAfterMs), signal);
  }
}

/** A final error carrying the replies lost before it (the loop counts them). */
function withLost(e: unknown, lost: LostReply[]): unknown {
  if (!lost.length || !(e instanceof ModelError)) return e;
  return new ModelError(e.kind, e.message, e.status, [...e.lost, ...lost]);
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
}
