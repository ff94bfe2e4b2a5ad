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
 * Creates a `Model` that calls `POST {baseUrl}/chat/completions`. 429, 5xx,
 * network errors and per-attempt timeouts are retried (honouring `Retry-After`,
 * else exponential backoff with jitter) up to `maxRetries` times; 401/403 and
 * other 4xx fail at once. Failures throw `ModelError`; an abort of the signal
 * given to `complete()` rejects with its reason and stops all retrying.
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
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRetries = nonNegative("maxRetries", options.maxRetries ?? 3, true);
  const baseMs = nonNegative("retryBaseMs", options.retryBaseMs ?? 250, false);
  const maxRetryAfter = nonNegative("maxRetryAfterMs", options.maxRetryAfterMs ?? 30_000, false);
  const timeoutMs = nonNegative("timeoutMs", options.timeoutMs ?? 120_000, false);
  const redact = redactor(options);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    ...options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    ...options.headers,
  };
  const streamHeaders = { ...headers, accept: "text/event-stream, application/json" };
  // Remembered per client: an endpoint that does not stream is not asked to every turn.
  let streams = options.stream ?? true;

  /** One attempt: a reply, a retryable failure, or a thrown final error. */
  async function attempt(
    body: string,
    signal: AbortSignal,
    request: ModelRequest,
    streaming: boolean,
  ) {
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
    }, timeoutMs);
    const onOuterAbort = () => ctrl.abort(signal.reason);
    signal.addEventListener("abort", onOuterAbort, { once: true });
    let status: number, statusText: string, text = "", retryAfter: string | null;
    let streamed: Record<string, unknown> | null = null;
    try {
      const init = {
        method: "POST",
        headers: streaming ? streamHeaders : headers,
        body,
        signal: ctrl.signal,
      };
      const res = await race(doFetch(url, init), ctrl.signal, (r) => void r.body?.cancel());
      ({ status, statusText } = res);
      retryAfter = res.headers.get("retry-after");
      const sse = /^\s*text\/event-stream/i.test(res.headers.get("content-type") ?? "");
      if (streaming && sse && status >= 200 && status < 300 && res.body) {
        const bad = malformed(url, redact);
        streamed = await readChatStream(res.body, {
          onText: request.onText,
          signal: ctrl.signal,
          bad,
        });
      } else {
        // A 2xx that is not a stream: this endpoint does not stream; stop asking it to.
        if (streaming && status >= 200 && status < 300) streams = false;
        text = await race(res.text(), ctrl.signal);
      }
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (e instanceof ModelError) throw e;
      const detail = timedOut
        ? `timed out after ${timeoutMs} ms`
        : redact(e instanceof Error ? e.message : String(e));
      return { kind: "network", what: `Network error calling ${url}`, detail } satisfies Retryable;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onOuterAbort);
    }
    if (streamed) return parseBody(streamed, url, request, redact);
    if (status >= 200 && status < 300) return parseReply(text, url, request, redact);
    // Redacted before it is cut, so not even a prefix of a secret is left.
    text = redact(text);
    const line = redact(`${status} ${statusText || STATUS_TEXT[status] || "Error"} from ${url}`);
    if (status === 401 || status === 403) {
      throw new ModelError("auth", `${line}: check LLM_API_KEY`, status);
    }
    if (status === 429 || status >= 500) {
      const kind = status === 429 ? "rate_limited" : "server";
      const detail = cutText(text, 200);
      const wait = retryAfterMs(retryAfter);
      return { kind, what: line, detail, status, retryAfterMs: wait } satisfies Retryable;
    }
    const kind = status === 400 && saysContextLength(text) ? "context_length" : "bad_request";
    throw new ModelError(kind, `${line}: ${errorMessage(text)}`, status);
  }

  return {
    name: options.model,
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
      signal.throwIfAborted();
      const payload: Record<string, unknown> = {
        model: options.model,
        messages: toWire(request.messages),
      };
      if (request.tools.length > 0) payload.tools = request.tools;
      if (request.maxTokens !== undefined) payload.max_tokens = request.maxTokens;
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
        const streaming = streams;
        let outcome;
        if (n > 1) text.retrying();
        try {
          outcome = await attempt(streaming ? streamed : plain, signal, watched, streaming);
        } catch (e) {
          // The plain request failed too: the 400 was not about streaming.
          if (fellBack && !streaming) streams = true;
          // A 400 may be a refusal to stream: ask once plainly (not a retry).
          if (!streaming || fellBack || !(e instanceof ModelError) || e.status !== 400) throw e;
          fellBack = true;
          streams = false;
          n--;
          continue;
        }
        if ("message" in outcome) return outcome;
        if (n > maxRetries) {
          const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
          const message = `${outcome.what} after ${attempts}: ${outcome.detail}`;
          throw new ModelError(outcome.kind, message, outcome.status);
        }
        const backoff = baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2);
        await sleep(Math.min(outcome.retryAfterMs ?? backoff, maxRetryAfter), signal);
      }
    },
  };
}
