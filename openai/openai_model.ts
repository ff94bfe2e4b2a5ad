/**
 * A `Model` backed by any OpenAI-compatible `POST /chat/completions` endpoint,
 * with bounded retries (429, 5xx, network errors, timeouts), abort support,
 * streaming (with a fallback for endpoints that do not stream) and strict
 * validation of the reply.
 *
 * @module
 */
import type { Model, ModelReply, ModelRequest } from "../harness/model.ts";
import { saysContextLength } from "../harness/context_errors.ts";
import { ModelError } from "../harness/errors.ts";
import { sleep } from "../harness/sleep.ts";
import { readChatStream } from "./openai_stream.ts";
import { attemptText } from "../harness/text_attempts.ts";
import { malformed, parseBody, parseReply } from "./openai_reply.ts";
import { cutText } from "../harness/text.ts";
import { toWire } from "../harness/call_ids.ts";
import type { OutputFormat } from "../harness/output.ts";

/** Options of {@linkcode createOpenAIModel}. */
export interface OpenAIModelOptions {
  /** Endpoint base, e.g. `http://127.0.0.1:8788/v1` (a trailing slash is ignored). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Model name sent in the request and used for pricing. */
  model: string;
  /** The `fetch` to use (tests pass an in-process fake). Default: global `fetch`. */
  fetch?: typeof fetch;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** Base of the exponential backoff, in ms. Default 250. */
  retryBaseMs?: number;
  /** Longest wait honoured from a `Retry-After` header, in ms. Default 30000. */
  maxRetryAfterMs?: number;
  /** Timeout of each attempt (request and body), in ms. Default 120000. */
  timeoutMs?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * Ask for a streamed reply (`stream: true`, usage in the last chunk) so the
   * request's `onText` sees the text as it arrives. Default true. An endpoint
   * that answers JSON instead, or refuses the stream with a 400 that a plain
   * request does not get, is asked plainly from then on.
   */
  stream?: boolean;
  /**
   * How a run with an output schema asks this endpoint for it:
   * `json_schema` (default) sends `response_format: { type: "json_schema",
   * json_schema: { name, schema, strict } }` with each request; `tool` is for
   * endpoints that refuse it: the run gives the model a `final_answer` tool instead.
   */
  structuredOutput?: "json_schema" | "tool";
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** A failed attempt worth retrying. */
interface Retryable {
  kind: "rate_limited" | "server" | "network";
  /** What failed, e.g. `500 Internal Server Error from <url>` or `Network error calling <url>`. */
  what: string;
  /** The body's first 200 characters, or the network error. */
  detail: string;
  status?: number;
  retryAfterMs?: number;
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

/** Whether a fetch failure is a refused connection (the error or its cause says so). */
function refused(e: unknown): boolean {
  for (let err = e, depth = 0; err instanceof Error && depth < 3; err = err.cause, depth++) {
    if (err instanceof Deno.errors.ConnectionRefused || /connection refused/i.test(err.message)) {
      return true;
    }
  }
  return false;
}

/** Settles with `p`, or rejects with `signal.reason` first; a late value goes to `onLate`. */
function race<T>(p: Promise<T>, signal: AbortSignal, onLate?: (v: T) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    let done = false;
    const onAbort = () => {
      done = true;
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    p.then((v) => {
      signal.removeEventListener("abort", onAbort);
      if (done) onLate?.(v);
      else resolve(v);
    }, (e) => {
      signal.removeEventListener("abort", onAbort);
      if (!done) reject(e);
    });
  });
}

/** Parses `Retry-After` (delta seconds, possibly fractional, or an HTTP date) to ms. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The error message an error body carries (`{error: {message}}`, `{error}`, `{message}`). */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text);
    const m = body?.error?.message ?? body?.error ?? body?.message;
    if (typeof m === "string" && m) return m;
  } catch { /* not JSON: use the text */ }
  return cutText(text, 200);
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
    const token = /^\s*(?:bearer|basic|token)\s+(\S+)/i.exec(v)?.[1];
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

/** The body of a chat-completions request (without the streaming fields). */
function chatPayload(model: string, request: ModelRequest): Record<string, unknown> {
  const payload: Record<string, unknown> = { model, messages: toWire(request.messages) };
  if (request.tools.length > 0) payload.tools = request.tools;
  if (request.maxTokens !== undefined) payload.max_tokens = request.maxTokens;
  if (request.output) payload.response_format = responseFormat(request.output);
  return payload;
}

/**
 * Creates a `Model` that calls `POST {baseUrl}/chat/completions`. 429, 5xx,
 * network errors and per-attempt timeouts are retried (honouring `Retry-After`,
 * else exponential backoff with jitter) up to `maxRetries` times; 401/403,
 * other 4xx and a refused connection (nothing listens there) fail at once.
 * Failures throw `ModelError`; an abort of the signal given to `complete()`
 * rejects with its reason and stops all retrying.
 *
 * @example
 * ```ts
 * import { createOpenAIModel } from "./openai_model.ts";
 * const model = createOpenAIModel({ baseUrl: "http://127.0.0.1:8788/v1", model: "gpt-x" });
 * console.log(model.name); // "gpt-x"
 * ```
 */
export function createOpenAIModel(options: OpenAIModelOptions): Model {
  const client = newClient(options);
  return {
    name: options.model,
    ...(options.structuredOutput ?? "json_schema") === "json_schema"
      ? { structuredOutput: "json_schema" as const }
      : {},
    complete: (request, signal) => complete(client, request, signal),
  };
}

/** What one client keeps: its checked options, and what it learned of the endpoint. */
interface Client {
  model: string;
  url: string;
  doFetch: typeof fetch;
  maxRetries: number;
  baseMs: number;
  maxRetryAfter: number;
  timeoutMs: number;
  redact: (text: string) => string;
  headers: Record<string, string>;
  streamHeaders: Record<string, string>;
  /** Remembered per client: an endpoint that does not stream is not asked to every turn. */
  streams: boolean;
}

function newClient(options: OpenAIModelOptions): Client {
  if (typeof options.baseUrl !== "string" || !options.baseUrl) {
    throw new TypeError("createOpenAIModel: baseUrl must be a non-empty string");
  }
  if (typeof options.model !== "string" || !options.model) {
    throw new TypeError("createOpenAIModel: model must be a non-empty string");
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    ...options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    ...options.headers,
  };
  return {
    model: options.model,
    url: `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`,
    doFetch: options.fetch ?? globalThis.fetch,
    maxRetries: nonNegative("maxRetries", options.maxRetries ?? 3, true),
    baseMs: nonNegative("retryBaseMs", options.retryBaseMs ?? 250, false),
    maxRetryAfter: nonNegative("maxRetryAfterMs", options.maxRetryAfterMs ?? 30_000, false),
    timeoutMs: nonNegative("timeoutMs", options.timeoutMs ?? 120_000, false),
    redact: redactor(options),
    headers,
    streamHeaders: { ...headers, accept: "text/event-stream, application/json" },
    streams: options.stream ?? true,
  };
}

/** One call: attempts, retries with backoff, and the one plain ask after a refused stream. */
async function complete(
  client: Client,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<ModelReply> {
  signal.throwIfAborted();
  const payload = chatPayload(client.model, request);
  const plain = JSON.stringify(payload);
  const streamed = JSON.stringify({
    ...payload,
    stream: true,
    stream_options: { include_usage: true },
  });
  let fellBack = false;
  const text = attemptText(request);
  const watched = { ...request, onText: text.onText };
  for (let n = 1;; n++) {
    const streaming = client.streams;
    let outcome;
    if (n > 1) text.retrying();
    try {
      outcome = await attempt(client, streaming ? streamed : plain, signal, watched, streaming);
    } catch (e) {
      // The plain request failed too: the 400 was not about streaming.
      if (fellBack && !streaming) client.streams = true;
      // A 400 may be a refusal to stream: ask once plainly (not a retry).
      if (!streaming || fellBack || !(e instanceof ModelError) || e.status !== 400) throw e;
      fellBack = true;
      client.streams = false;
      n--;
      continue;
    }
    if ("message" in outcome) return outcome;
    if (n > client.maxRetries) {
      const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
      const message = `${outcome.what} after ${attempts}: ${outcome.detail}`;
      throw new ModelError(outcome.kind, message, outcome.status);
    }
    const backoff = client.baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2);
    await sleep(Math.min(outcome.retryAfterMs ?? backoff, client.maxRetryAfter), signal);
  }
}

/** What an attempt received: a read stream, or a plain body with its status. */
type Received =
  | { streamed: Record<string, unknown> }
  | { status: number; statusText: string; text: string; retryAfter: string | null };

/** One attempt: a reply, a retryable failure, or a thrown final error. */
async function attempt(
  client: Client,
  body: string,
  signal: AbortSignal,
  request: ModelRequest,
  streaming: boolean,
): Promise<ModelReply | Retryable> {
  const received = await send(client, body, signal, request, streaming);
  if ("kind" in received) return received;
  if ("streamed" in received) {
    return parseBody(received.streamed, client.url, request, client.redact);
  }
  return outcome(client, received, request);
}

/** Sends one request under the attempt's timeout and reads its body; a network failure is retryable. */
async function send(
  client: Client,
  body: string,
  signal: AbortSignal,
  request: ModelRequest,
  streaming: boolean,
): Promise<Received | Retryable> {
  const { url, redact, timeoutMs } = client;
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  const onOuterAbort = () => ctrl.abort(signal.reason);
  signal.addEventListener("abort", onOuterAbort, { once: true });
  try {
    const headers = streaming ? client.streamHeaders : client.headers;
    const init = { method: "POST", headers, body, signal: ctrl.signal };
    const res = await race(client.doFetch(url, init), ctrl.signal, (r) => void r.body?.cancel());
    const { status, statusText } = res;
    const ok = status >= 200 && status < 300;
    const sse = /^\s*text\/event-stream/i.test(res.headers.get("content-type") ?? "");
    if (streaming && sse && ok && res.body) {
      const bad = malformed(url, redact);
      return {
        streamed: await readChatStream(res.body, {
          onText: request.onText,
          signal: ctrl.signal,
          bad,
        }),
      };
    }
    // A 2xx that is not a stream: this endpoint does not stream; stop asking it to.
    if (streaming && ok) client.streams = false;
    const text = await race(res.text(), ctrl.signal);
    return { status, statusText, text, retryAfter: res.headers.get("retry-after") };
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    if (e instanceof ModelError) throw e;
    // Nothing listens there: retrying (meant for 429/5xx, a dropped connection) only delays it.
    if (!timedOut && refused(e)) {
      throw new ModelError("network", `Nothing listens at ${url}: connection refused`);
    }
    const detail = timedOut
      ? `timed out after ${timeoutMs} ms`
      : redact(e instanceof Error ? e.message : String(e));
    return { kind: "network", what: `Network error calling ${url}`, detail } satisfies Retryable;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onOuterAbort);
  }
}

/** A plain body's meaning: the reply, a retryable failure (429, 5xx), or a thrown error. */
async function outcome(
  client: Client,
  r: Extract<Received, { status: number }>,
  request: ModelRequest,
): Promise<ModelReply | Retryable> {
  const { status, url, redact } = { ...r, ...client };
  if (status >= 200 && status < 300) return await parseReply(r.text, url, request, redact);
  // Redacted before it is cut, so not even a prefix of a secret is left.
  const text = redact(r.text);
  const line = redact(`${status} ${r.statusText || STATUS_TEXT[status] || "Error"} from ${url}`);
  if (status === 401 || status === 403) {
    throw new ModelError("auth", `${line}: check LLM_API_KEY`, status);
  }
  if (status === 429 || status >= 500) {
    const kind = status === 429 ? "rate_limited" : "server";
    const detail = cutText(text, 200);
    const wait = retryAfterMs(r.retryAfter);
    return { kind, what: line, detail, status, retryAfterMs: wait } satisfies Retryable;
  }
  const kind = status === 400 && saysContextLength(text) ? "context_length" : "bad_request";
  throw new ModelError(kind, `${line}: ${errorMessage(text)}`, status);
}
