/**
 * Reading a streamed chat completion (`stream: true`): the server-sent events
 * of `chat.completion.chunk`s, assembled into the body a non-streaming call
 * would have returned, so one validator checks both. Text deltas go to
 * `onText` as they arrive; tool calls are assembled from their deltas by index.
 *
 * When a reply is whole: when its choice has a `finish_reason`. That is the
 * model saying it has finished; `[DONE]` and the usage chunk are the
 * transport's, and providers differ (some never send `[DONE]`, some send no
 * usage), so a stream that ends after a `finish_reason` without them is a
 * whole reply (its usage then counted locally, as for an endpoint that
 * reports none). A stream that ends without a `finish_reason` (the body just
 * stops, an empty 200 stream, a cut between two tool calls, even `[DONE]`
 * without one) or breaks mid-body is a {@link StreamCutError}: a transport
 * failure, retried, never an answer. The official `openai` client draws the
 * same line (`missing finish_reason for choice 0`).
 *
 * @module
 */
import { ModelError } from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { cutText } from "../harness/text.ts";
import { isReportedError, roughTokens } from "./openai_reply.ts";
import { contentText, unseenText } from "./reply_words.ts";
import { isObject } from "../harness/is_object.ts";
import { readSseData } from "./sse_reader.ts";

/** Options of {@link readChatStream}. */
export interface ChatStreamOptions {
  /** Receives each piece of the reply's text as it arrives. */
  onText?: ((delta: string) => void) | undefined;
  /** Aborts the read at once (the body is cancelled). */
  signal: AbortSignal;
  /** Builds the error for a stream that breaks the protocol. */
  bad: (what: string) => ModelError;
  /** Builds the error of a chunk that is the provider's error (see `isReportedError`). */
  reported: (chunk: Record<string, unknown>) => ModelError;
  /** Most bytes of a stream (a longer one is `bad`; default: no cap). */
  maxBytes?: number | undefined;
  /** The reply tokens the call asked for at most (`max_tokens`), for a rough estimate. */
  maxTokens?: number | undefined;
}

interface CallParts {
  id?: string;
  type?: string;
  name?: string;
  args: string;
}

/**
 * A stream that broke off before its reply finished (see the module doc),
 * with what had arrived: the provider may have billed it.
 */
export class StreamCutError extends Error {
  /** The body assembled from what arrived (its `finish_reason` null). */
  readonly partial: Record<string, unknown>;
  /** Creates the error. */
  constructor(message: string, partial: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.name = "StreamCutError";
    this.partial = partial;
  }
}

/**
 * A stream refused at `maxBytes`: a malformed reply, not retried. The
 * provider was writing a reply it may bill: what had arrived is a lost
 * reply, its tokens estimated roughly (see `roughTokens`).
 */
function overCap(options: ChatStreamOptions, out: Assembler, bytes: number): ModelError {
  return withLostSoFar(
    options.bad(`the stream passed ${bytes} bytes (maxReplyBytes)`),
    options,
    out,
  );
}

/** `e` carrying what the stream had delivered as a lost reply, estimated roughly. */
function withLostSoFar(e: ModelError, options: ChatStreamOptions, out: Assembler): ModelError {
  let chars = (out.content?.length ?? 0) + out.refusal.length + out.unseen.length;
  for (const c of out.calls.values()) chars += c.args.length + (c.name?.length ?? 0);
  const lost = { completion_tokens: roughTokens(chars, options.maxTokens), reason: e.message };
  return new ModelError(e.kind, e.message, e.status, [lost]);
}

/** Assembles chunks into a `chat.completion`-shaped body. */
class Assembler {
  content: string | null = null;
  refusal = "";
  /** What the reply wrote and does not show, billed all the same (see `unseenText`). */
  unseen = "";
  calls = new Map<number, CallParts>();
  finish: unknown = undefined;
  usage: unknown = undefined;
  model: unknown = undefined;
  constructor(private options: ChatStreamOptions) {}

  add(chunk: unknown): void {
    const { bad, onText } = this.options;
    if (!isObject(chunk)) throw bad("a stream chunk is not a JSON object");
    if (isReportedError(chunk)) throw this.options.reported(chunk);
    if (typeof chunk["model"] === "string") this.model = chunk["model"];
    if (chunk["usage"] !== undefined && chunk["usage"] !== null) this.usage = chunk["usage"];
    if (chunk["choices"] === undefined || chunk["choices"] === null) return;
    if (!Array.isArray(chunk["choices"])) throw bad("a stream chunk's choices is not an array");
    const choice = chunk["choices"].find((c) => isObject(c) && (c["index"] ?? 0) === 0);
    if (!isObject(choice)) return;
    if (choice["finish_reason"] !== undefined && choice["finish_reason"] !== null) {
      this.finish = choice["finish_reason"];
    }
    const delta = choice["delta"];
    if (delta === undefined || delta === null) return;
    if (!isObject(delta)) throw bad("a stream chunk's delta is not an object");
    const text = contentText(delta["content"]);
    if (text === undefined) throw bad("a stream delta's content is not a string or text parts");
    if (text !== null) this.content = (this.content ?? "") + text;
    this.unseen += unseenText(delta);
    // A refusal streams as its own deltas; it is the reply's text too (see validReply).
    const refusal = typeof delta["refusal"] === "string" ? delta["refusal"] : "";
    if (refusal) this.refusal += refusal;
    const shown = (text ?? "") + refusal;
    if (onText && shown) {
      try {
        onText(shown);
      } catch { /* a watcher's failure is not the call's */ }
    }
    if (delta["tool_calls"] !== undefined && delta["tool_calls"] !== null) {
      if (!Array.isArray(delta["tool_calls"])) {
        throw bad("a stream delta's tool_calls is not an array");
      }
      for (const t of delta["tool_calls"]) this.#addCall(t);
    }
  }

  #addCall(t: unknown): void {
    const { bad } = this.options;
    if (!isObject(t)) throw bad("a streamed tool call is not an object");
    const index = typeof t["index"] === "number" ? t["index"] : this.calls.size;
    const parts = this.calls.get(index) ?? { args: "" };
    if (typeof t["id"] === "string" && t["id"]) parts.id = t["id"];
    if (typeof t["type"] === "string") parts.type = t["type"];
    const f = t["function"];
    if (isObject(f)) {
      if (typeof f["name"] === "string" && f["name"]) parts.name = (parts.name ?? "") + f["name"];
      if (typeof f["arguments"] === "string") parts.args += f["arguments"];
      else if (f["arguments"] !== undefined && f["arguments"] !== null) {
        throw bad("a streamed tool call's arguments is not a string");
      }
    }
    this.calls.set(index, parts);
  }

  body(): Record<string, unknown> {
    const message: Record<string, unknown> = { role: "assistant", content: this.content };
    if (this.refusal) message["refusal"] = this.refusal;
    // Not the answer's: carried for a local count (a lost reply, or a reply without usage).
    if (this.unseen) message["reasoning_content"] = this.unseen;
    if (this.calls.size) {
      message["tool_calls"] = [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map((
        [, c],
      ) => ({
        id: c.id,
        type: c.type ?? "function",
        function: { name: c.name, arguments: c.args },
      }));
    }
    const body: Record<string, unknown> = {
      choices: [{ index: 0, message, finish_reason: this.finish ?? null }],
    };
    if (this.usage !== undefined) body["usage"] = this.usage;
    if (this.model !== undefined) body["model"] = this.model;
    return body;
  }
}

/**
 * Reads an SSE chat-completions stream to its end (`data: [DONE]` or the end
 * of the body) and returns the equivalent non-streaming body. Throws what
 * `options.bad` builds for a chunk that is not JSON, what `options.reported`
 * builds for the provider's error chunk, a {@link StreamCutError}
 * for a reply that did not finish (no `finish_reason`) or a body that broke
 * off, and rejects with the signal's reason when it aborts (the body is
 * cancelled either way).
 *
 * @example
 * ```ts
 * import { readChatStream } from "./openai_stream.ts";
 * import { ModelError } from "../harness/errors.ts";
 * const sse = 'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n';
 * const body = await readChatStream(new Blob([sse]).stream(), {
 *   onText: (d) => console.log(d), // "hi"
 *   signal: new AbortController().signal,
 *   bad: (what) => new ModelError("malformed", what),
 *   reported: (chunk) => new ModelError("server", JSON.stringify(chunk.error)),
 * });
 * console.log(JSON.stringify(body.choices));
 * ```
 */
export async function readChatStream(
  stream: ReadableStream<Uint8Array>,
  options: ChatStreamOptions,
): Promise<Record<string, unknown>> {
  const out = new Assembler(options);
  let done = false;
  let chunks = 0;
  const onData = (text: string) => {
    if (text.trim() === "[DONE]") return done = true;
    let chunk: unknown;
    try {
      chunk = JSON.parse(text);
    } catch {
      throw options.bad(`a stream chunk is not JSON: ${JSON.stringify(cutText(text, 200))}`);
    }
    out.add(chunk);
    chunks++;
    return false; // read on
  };
  try {
    await readSseData(stream, onData, {
      signal: options.signal,
      maxBytes: options.maxBytes,
      tooLarge: (bytes) => overCap(options, out, bytes),
      broke: (e) =>
        new StreamCutError(`the connection broke mid-reply: ${messageOf(e)}`, out.body(), {
          cause: e,
        }),
    });
  } catch (e) {
    // A chunk refused, or an error reported, after valid ones: the provider was
    // writing a reply it may bill.
    const broken = e instanceof ModelError && (e.kind === "malformed" || e.kind === "server");
    throw broken && !e.lost.length && chunks > 0 ? withLostSoFar(e, options, out) : e;
  }
  if (out.finish === undefined) {
    const how = done ? "[DONE] came without a finish_reason" : "no finish_reason, usage or [DONE]";
    throw new StreamCutError(`the stream ended before the reply finished (${how})`, out.body());
  }
  return out.body();
}
