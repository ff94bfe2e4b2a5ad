/**
 * One attempt of a chat-completions call: the request, the reply read whole
 * (streamed or not) and validated, or the failure sorted into what is worth
 * retrying (429, 5xx, network errors, timeouts, a stream cut short) and what
 * is final (401/403, other 4xx, a malformed reply).
 *
 * @module
 */
import { raceSignal } from "../harness/race_signal.ts";
import { saysContextLength } from "../harness/context_errors.ts";
import type { LostReply, ModelReply, ModelRequest } from "../harness/model.ts";
import { ModelError } from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { cutText } from "../harness/text.ts";
import { watchDeadline } from "../harness/watch_deadline.ts";
import { readChatStream, StreamCutError } from "./openai_stream.ts";
import {
  lostIfBegun,
  parseBody,
  parseReply,
  readableReplyTokens,
  type ReplyCheck,
} from "./openai_reply.ts";

/** What every attempt of one client shares (its reply checks made once, too). */
export interface AttemptConfig extends ReplyCheck {
  /** `{baseUrl}/chat/completions`. */
  url: string;
  doFetch: typeof fetch;
  /**
   * Whether `doFetch` is the runtime's own fetch, which rejects (the request,
   * and a body being read) with the signal's reason once it aborts: then no
   * race of our own is needed. A caller's fetch may ignore the signal.
   */
  nativeFetch: boolean;
  timeoutMs: number;
  /** Most bytes of a reply body, streamed or not (a longer one is a malformed reply). */
  maxReplyBytes: number;
  /** Headers of a plain request. */
  headers: Record<string, string>;
  /** Headers of a streamed request. */
  streamHeaders: Record<string, string>;
  /** Called when a streamed request got a plain 2xx reply: the endpoint does not stream. */
  onPlain: () => void;
}

/** A failed attempt worth retrying. */
export interface Retryable {
  kind: "rate_limited" | "server" | "network";
  /** What failed, e.g. `500 Internal Server Error from <url>` or `Network error calling <url>`. */
  what: string;
  /** The body's first 200 characters, or the network error. */
  detail: string;
  status?: number | undefined;
  retryAfterMs?: number | undefined;
  /** The reply the provider had begun, lost on the way (it may have billed it). */
  lost?: LostReply | undefined;
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

/** An HTTP answer read whole: a plain body, or a stream assembled into one. */
type Answer =
  | { streamed: Record<string, unknown> }
  | { status: number; statusText: string; text: string; retryAfter: string | null };

/** One attempt: a reply, a retryable failure, or a thrown final error. */
export async function attempt(
  cfg: AttemptConfig,
  body: string,
  signal: AbortSignal,
  request: ModelRequest,
  streaming: boolean,
): Promise<ModelReply | Retryable> {
  const ctrl = new AbortController();
  let timedOut = false;
  const forget = watchDeadline(cfg.timeoutMs, () => {
    timedOut = true;
    ctrl.abort(new DOMException(`timed out after ${cfg.timeoutMs} ms`, "TimeoutError"));
  });
  const onOuterAbort = () => ctrl.abort(signal.reason);
  // Removed in `finally` either way: no `once` (its options cost a conversion every call).
  signal.addEventListener("abort", onOuterAbort);
  let answer: Answer;
  try {
    answer = await fetchAnswer(cfg, body, ctrl.signal, request, streaming);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    return await failure(cfg, e, timedOut);
  } finally {
    forget();
    signal.removeEventListener("abort", onOuterAbort);
  }
  if ("streamed" in answer) return parseBody(answer.streamed, request, cfg);
  const outcome = await interpret(cfg, answer, request);
  // A plain reply (not an error in its place) to a streamed call: this endpoint
  // does not stream; stop asking it to.
  if (streaming && "message" in outcome) cfg.onPlain();
  return outcome;
}

/** Sends the request and reads the answer whole (a 2xx stream is assembled). */
async function fetchAnswer(
  cfg: AttemptConfig,
  body: string,
  signal: AbortSignal,
  request: ModelRequest,
  streaming: boolean,
): Promise<Answer> {
  const init = {
    method: "POST",
    headers: streaming ? cfg.streamHeaders : cfg.headers,
    body,
    signal,
  };
  const sent = cfg.doFetch(cfg.url, init);
  const res =
    await (cfg.nativeFetch ? sent : raceSignal(sent, signal, (r) => void r.body?.cancel()));
  const { status, statusText } = res;
  const ok = status >= 200 && status < 300;
  const { bad, reported } = cfg;
  const maxBytes = cfg.maxReplyBytes;
  // A plain call reads no content type: each header read costs a turn a few µs.
  if (streaming && ok && res.body && isEventStream(res.headers.get("content-type") ?? "")) {
    const streamed = await readChatStream(res.body, {
      onText: request.onText,
      signal,
      bad,
      reported,
      maxBytes,
      maxTokens: request.maxTokens,
    });
    return { streamed };
  }
  // Only a 2xx was taken by the provider: an error body over the cap is no reply.
  const read = cappedText(res, maxBytes, bad, cfg.nativeFetch, ok ? request : null);
  const text = await (cfg.nativeFetch ? read : raceSignal(read, signal));
  // Only a refusal says when to come back (a 2xx is not asked for one header more).
  return { status, statusText, text, retryAfter: ok ? null : res.headers.get("retry-after") };
}

/** Whether a content type is SSE's (compared by hand: no regexp on a turn's path). */
function isEventStream(contentType: string): boolean {
  return contentType.trimStart().slice(0, 17).toLowerCase() === "text/event-stream";
}

/**
 * The body's text, at most `maxBytes`: one read when the runtime's own fetch
 * declared its length for a body sent as it is (it reads no further), else
 * in pieces, counted: an endless body, a compressed one (its length is the
 * compressed one), or a custom fetch's must not take the isolate's memory.
 * A body declared longer than the cap is refused after its first piece.
 * The 2xx body of `billed` (its request) refused is counted as lost when it
 * began like a reply (`lostIfBegun`); an error's body is not.
 */
function cappedText(
  res: Response,
  maxBytes: number,
  bad: (what: string, lost?: readonly LostReply[]) => ModelError,
  nativeFetch: boolean,
  billed: ModelRequest | null,
): Promise<string> {
  // Headers are read only for the runtime's fetch: any other body is counted anyway.
  const plain = nativeFetch && !res.headers.has("content-encoding");
  const length = plain ? res.headers.get("content-length") : null;
  const declared = length ? Number(length) : NaN;
  // The common case, every turn: one read, no async frame of ours around it.
  if (plain && declared <= maxBytes) return res.text();
  if (!res.body) return Promise.resolve("");
  return readCapped(res.body, declared, maxBytes, bad, billed);
}

/** Reads a body in pieces, counted (see {@link cappedText}). */
async function readCapped(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  declared: number,
  maxBytes: number,
  bad: (what: string, lost?: readonly LostReply[]) => ModelError,
  billed: ModelRequest | null,
): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!value.byteLength) continue; // an empty piece has no head to judge
      bytes += value.byteLength;
      // Declared too long: not read further, but its first bytes tell a reply from a page.
      const passed = declared > maxBytes ? declared : bytes;
      if (passed > maxBytes) {
        const what = `the body passed ${passed} bytes (maxReplyBytes)`;
        const head = UTF8.decode((chunks[0] ?? value).subarray(0, 64));
        throw bad(what, billed ? lostIfBegun(head, passed, billed.maxTokens, what) : []);
      }
      chunks.push(value);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  }
  // Decoded once, whole (most plain replies are one chunk).
  return chunks.length === 1 ? UTF8.decode(chunks[0]) : await new Blob(chunks).text();
}

const UTF8 = new TextDecoder();

/** A thrown failure: final (a `ModelError`), or retryable (network, timeout, a cut stream). */
async function failure(cfg: AttemptConfig, e: unknown, timedOut: boolean): Promise<Retryable> {
  if (e instanceof ModelError) throw e;
  // Nothing listens there: retrying (meant for 429/5xx, a dropped connection) only delays it.
  if (!timedOut && !(e instanceof StreamCutError) && refused(e)) {
    throw new ModelError("network", `Nothing listens at ${cfg.url}: connection refused`);
  }
  // The process may not reach it (no --allow-net for its host): a retry cannot help.
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    throw new ModelError("network", `Cannot call ${cfg.url}: ${cfg.redact(messageOf(e))}`);
  }
  const detail = timedOut ? `timed out after ${cfg.timeoutMs} ms` : cfg.redact(messageOf(e));
  if (!(e instanceof StreamCutError)) {
    return { kind: "network", what: `Network error calling ${cfg.url}`, detail };
  }
  // What had arrived, counted locally: the provider may bill it.
  const lost = { completion_tokens: await readableReplyTokens(e.partial), reason: detail };
  const what = e.cause === undefined
    ? `The stream from ${cfg.url} ended before the reply finished`
    : `Network error calling ${cfg.url}`;
  return { kind: "network", what, detail, lost };
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

/** A plain HTTP answer: the reply of a 2xx, else a retryable or final failure. */
function interpret(
  cfg: AttemptConfig,
  answer: Extract<Answer, { status: number }>,
  request: ModelRequest,
): Promise<ModelReply> | Retryable {
  const { status, statusText, retryAfter } = answer;
  if (status >= 200 && status < 300) {
    return parseReply(answer.text, request, cfg);
  }
  // Redacted before it is cut, so not even a prefix of a secret is left.
  const text = cfg.redact(answer.text);
  const line = cfg.redact(
    `${status} ${statusText || STATUS_TEXT[status] || "Error"} from ${cfg.url}`,
  );
  if (status === 401 || status === 403) {
    throw new ModelError("auth", `${line}: check LLM_API_KEY`, status);
  }
  if (status === 429 || status >= 500) {
    const kind = status === 429 ? "rate_limited" : "server";
    const detail = cutText(text, 200);
    const wait = retryAfterMs(retryAfter);
    return { kind, what: line, detail, status, retryAfterMs: wait };
  }
  const kind = status === 400 && saysContextLength(text) ? "context_length" : "bad_request";
  throw new ModelError(kind, `${line}: ${errorMessage(text)}`, status);
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
