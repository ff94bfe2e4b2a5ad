/**
 * Reading a server-sent-events body by its `data` fields, at the cost of a
 * hand-written loop: one reader (a BYOB reader filling one reused buffer when
 * the body is a byte stream, as `fetch`'s are; Deno's default reader
 * allocates a fresh zeroed 64 KiB buffer per read), one streaming
 * `TextDecoder`, one abort listener per stream, lines split in place.
 *
 * @module
 */

/** Bytes of the one buffer a BYOB read fills. */
const BUFFER_BYTES = 16_384;
/** Buffers of finished streams, for the next (a zeroed 16 KiB allocation per call is not free). */
const spare: ArrayBuffer[] = [];
const MAX_SPARE = 8;

/** Options of {@link readSseData}. */
export interface SseDataOptions {
  /** Aborts the read at once: the body is cancelled and the read rejects with the reason. */
  signal: AbortSignal;
  /** The error of a body that broke mid-read (given what the read threw). */
  broke: (e: unknown) => unknown;
  /** Most bytes read before the read rejects with what `tooLarge` builds (default: no cap). */
  maxBytes?: number | undefined;
  /** The error of a body longer than `maxBytes`. */
  tooLarge?: ((bytes: number) => unknown) | undefined;
}

/**
 * Reads `stream` to its end, or until `onData` returns true, calling
 * `onData` with each event's data (its `data:` lines joined by `\n`); lines
 * end in `\r\n`, `\n` or `\r`; other fields and comments are skipped; an
 * event cut short by the body's end (its last line has no line break, and
 * its data is not whole: `[DONE]`, or a JSON object or array) is not
 * dispatched. Rejects
 * with `signal.reason` when it aborts, with what `broke` builds when the body
 * breaks, or with what `onData` throws; the body is cancelled either way.
 *
 * @example
 * ```ts
 * import { readSseData } from "./sse_reader.ts";
 * const body = new Blob(["data: a\n\ndata: b\r\n\r\n"]).stream();
 * await readSseData(body, (d) => void console.log(d), {
 *   signal: new AbortController().signal,
 *   broke: (e) => e,
 * }); // a, then b
 * ```
 */
export async function readSseData(
  stream: ReadableStream<Uint8Array>,
  onData: (data: string) => boolean | void,
  options: SseDataOptions,
): Promise<void> {
  const { signal } = options;
  signal.throwIfAborted();
  let byob: ReadableStreamBYOBReader | undefined;
  let plain: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    plain = stream.getReader(); // not a byte stream
  }
  const reader = (byob ?? plain)!;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  // No `once` (its options cost a conversion every call): removed in `finally`.
  signal.addEventListener("abort", onAbort);
  const lines = new SseLines(onData);
  const decoder = new TextDecoder();
  let buffer: Uint8Array<ArrayBuffer> | undefined = byob
    ? new Uint8Array(spare.pop() ?? new ArrayBuffer(BUFFER_BYTES))
    : undefined;
  const maxBytes = options.maxBytes ?? Infinity;
  let bytes = 0;
  try {
    for (;;) {
      let got: ReadableStreamReadResult<Uint8Array>;
      try {
        got = byob ? await byob.read(buffer!) : await plain!.read();
      } catch (e) {
        throw signal.aborted ? signal.reason : options.broke(e);
      }
      // A BYOB read hands the same memory back (its view may be shorter, or empty at the end).
      if (byob && got.value) buffer = new Uint8Array(got.value.buffer as ArrayBuffer);
      if (signal.aborted) throw signal.reason;
      if (got.done) break;
      // An endless or huge stream must not take the isolate's memory with it.
      if ((bytes += got.value.byteLength) > maxBytes) {
        throw options.tooLarge?.(bytes) ?? new RangeError(`the body passed ${maxBytes} bytes`);
      }
      if (lines.push(decoder.decode(got.value, { stream: true }))) return;
    }
    lines.end(decoder.decode());
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {});
    // Not after a failed read: the buffer may still be the stream's.
    if (buffer && !buffer.buffer.detached && buffer.buffer.byteLength === BUFFER_BYTES) {
      if (spare.length < MAX_SPARE) spare.push(buffer.buffer);
    }
  }
}

/** Splits decoded text into lines and lines into events (see {@link readSseData}). */
class SseLines {
  #rest = "";
  #data: string | null = null;
  /** The last text ended in `\r`: a `\n` starting the next is the same line break. */
  #afterCr = false;
  #done = false;
  constructor(private onData: (data: string) => boolean | void) {}

  /** Takes a piece of text; true once `onData` said it is done. */
  push(text: string): boolean {
    let from = 0;
    if (this.#afterCr && text.charCodeAt(0) === 10) from = 1;
    this.#afterCr = false;
    const n = text.length;
    // Breaks found by indexOf, natively: a loop over each character is hot
    // enough for the optimizing compiler, whose work costs a short run more
    // time and memory than it saves.
    let lf = text.indexOf("\n", from);
    let cr = text.indexOf("\r", from);
    while (!this.#done) {
      if (lf >= 0 && lf < from) lf = text.indexOf("\n", from);
      if (cr >= 0 && cr < from) cr = text.indexOf("\r", from);
      const i = cr < 0 ? lf : lf < 0 ? cr : Math.min(lf, cr);
      if (i < 0) break;
      const piece = text.slice(from, i);
      this.#line(this.#rest ? this.#rest + piece : piece);
      this.#rest = "";
      from = i + 1;
      if (i === cr) {
        if (from === n) this.#afterCr = true;
        else if (text.charCodeAt(from) === 10) from++;
      }
    }
    if (!this.#done && from < n) this.#rest += text.slice(from);
    return this.#done;
  }

  /**
   * The body ended. An event whose lines all ended is dispatched without its
   * blank line (some servers omit the last), and so is a last `data:` line
   * without its line break when it is whole (`[DONE]`, or JSON that parses).
   * Any other last line was cut mid-event: that event is dropped, as the SSE
   * standard says, so the reader sees a stream that stopped early, not a
   * chunk of half a JSON text.
   */
  end(text: string): void {
    if (this.push(text)) return;
    const last = this.#rest;
    this.#rest = "";
    if (last) {
      this.#line(last);
      if (last.startsWith("data:") && !whole(this.#data!)) return void (this.#data = null);
    }
    if (this.#data !== null && !this.#done) this.#dispatch();
  }

  #line(line: string): void {
    if (line === "") {
      if (this.#data !== null) this.#dispatch();
    } else if (line.startsWith("data:")) {
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      this.#data = this.#data === null ? value : `${this.#data}\n${value}`;
    }
    // Other fields (event:, id:, retry:) and comments (":") carry nothing we use.
  }

  #dispatch(): void {
    const data = this.#data!;
    this.#data = null;
    if (this.onData(data) === true) this.#done = true;
  }
}

/**
 * Whether an event's data, its last line with no line break, is whole:
 * `[DONE]`, or a JSON object or array that parses (`data: 12` may be cut
 * from `data: 123`; an object cannot end early and still parse).
 */
function whole(data: string): boolean {
  if (data.trim() === "[DONE]") return true;
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
}
