/**
 * Headers of any size: a run's header (the run without its messages) holds
 * fields with no natural bound (the final answer, an error text, a stop
 * reason, the arguments of a call awaiting approval, rejection reasons). A
 * header that does not fit one KV value is stored as chunks beside the run,
 * written in the same atomic as the run's key, which then holds a preview
 * (long texts cut, lists of call ids emptied) and how many chunks the full header has.
 *
 * The ceiling: {@link HEADER_CEILING_BYTES} of header, so the whole header
 * fits the final atomic of a save (KV: 800 KiB per commit). Over it, the save
 * stores the run `failed`, the long texts cut with a marker and the reason,
 * and throws a `RunTooLargeError` (which `run()` turns into its `failed` exit):
 * never left `running`, and a resume is refused cleanly (a failed run does not resume).
 *
 * @module
 */
import type { StoredHeader } from "./record.ts";
import type { JsonValue } from "../harness/state.ts";
import { headerChunkKey } from "./keys.ts";
import { CHUNK_BYTES, keyBytes, type MessageChunk, type Write, write } from "./chunks.ts";
import { encodeJson } from "./value_codec.ts";
import { RecordError } from "./record_error.ts";
import { cutText } from "../harness/text.ts";

/** A header up to this size (estimated) is stored as one KV value, as in schema 1. */
export const HEADER_INLINE_BYTES = 60_000;
/** The most header a run may have (estimated bytes); over it the run ends `failed`. */
export const HEADER_CEILING_BYTES = 512 * 1024;
/** Longest text kept in the preview header (and in a header cut down to the ceiling). */
const PREVIEW_CHARS = 2_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A header serialized once: its JSON text, its stored bytes, its size as `valueBytes` counts it. */
export interface SerializedHeader {
  text: string;
  stored: Uint8Array;
  bytes: number;
}

/**
 * Serializes a header once, for the ceiling, the inline check and the write to share.
 *
 * @example
 * ```ts
 * import { serializeHeader } from "./header_chunks.ts";
 * import { toHeader } from "./record.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(serializeHeader(toHeader(newRun("hi"))).bytes > 0); // true
 * ```
 */
export function serializeHeader(header: StoredHeader): SerializedHeader {
  const text = JSON.stringify(header);
  const stored = encodeJson(text);
  // valueBytes counts the JSON's UTF-8 bytes + 40; the envelope around it is 29.
  return { text, stored, bytes: stored.byteLength + 11 };
}

/**
 * The writes that store `header`: the run key's value (the header, or its
 * preview) and the chunks of a header too large for one value.
 */
export function headerWrites(
  runKey: Deno.KvKey,
  header: StoredHeader,
  json: SerializedHeader = serializeHeader(header),
): Write[] {
  if (json.bytes <= HEADER_INLINE_BYTES) {
    return [{ key: runKey, value: json.stored, bytes: keyBytes(runKey) + json.stored.byteLength }];
  }
  const bytes = encoder.encode(json.text);
  const parts = Math.ceil(bytes.byteLength / CHUNK_BYTES);
  const writes = [write(runKey, { ...preview(header), overflow: { parts } })];
  for (let i = 0; i < parts; i++) {
    const chunk: MessageChunk = {
      parts,
      data: bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
    };
    writes.push(write(headerChunkKey(header.runId, i), chunk));
  }
  return writes;
}

/**
 * `header` cut down to fit the ceiling, stored `failed` with the reason, or
 * null when it fits as it is.
 */
export function overCeiling(
  header: StoredHeader,
  json: SerializedHeader = serializeHeader(header),
): StoredHeader | null {
  const size = json.bytes;
  if (size <= HEADER_CEILING_BYTES) return null;
  const cut = preview(header);
  const reason = `the run's record (${size} bytes without its messages) is over the ceiling of ` +
    `${HEADER_CEILING_BYTES} bytes a run may store; long texts were cut`;
  return {
    ...cut,
    status: "failed",
    interruption: null,
    stopReason: reason,
    error: cut.error ?? reason,
  };
}

/** The header with long texts cut with a marker and its unbounded lists emptied. */
function preview(h: StoredHeader): StoredHeader {
  const i = h.interruption;
  return {
    ...h,
    output: typeof h.output === "string" ? cutMarked(h.output) : previewValue(h.output),
    error: cutMarked(h.error),
    ...h.failure ? { failure: { ...h.failure, raw: cutMarked(h.failure.raw) } } : {},
    stopReason: cutMarked(h.stopReason),
    interruption: i?.type === "approval"
      ? { ...i, args: cutMarked(JSON.stringify(i.args) ?? "") }
      : i?.type === "cancelled"
      ? { ...i, reason: cutMarked(i.reason) ?? "" }
      : i,
    rejected: h.rejected.map((r) => ({ ...r, reason: cutMarked(r.reason) ?? "" })),
    ...(h.context ? { context: { ...h.context, summary: cutMarked(h.context.summary) } } : {}),
    resultCache: {},
    approved: [],
    inFlight: [],
  };
}

/** A typed run's value in the preview: kept when short, else its JSON cut with a marker. */
function previewValue(value: JsonValue | null): JsonValue | null {
  const json = JSON.stringify(value);
  return json.length <= PREVIEW_CHARS ? value : cutMarked(json);
}

function cutMarked<T extends string | null>(text: T): T {
  if (text === null || text.length <= PREVIEW_CHARS) return text;
  return `${cutText(text, PREVIEW_CHARS)}… [${
    text.length - cutText(text, PREVIEW_CHARS).length
  } characters cut]` as T;
}

/** The chunk keys a stored header value points at, if it is a preview. */
export function overflowParts(value: unknown): number | null {
  if (typeof value !== "object" || value === null) return null;
  const parts = (value as { overflow?: { parts?: unknown } }).overflow?.parts;
  return Number.isInteger(parts) && (parts as number) > 0 ? parts as number : null;
}

/** Joins the stored chunks of a header (indexed by part) into its JSON value. */
export function joinHeader(runId: string, parts: number, chunks: unknown[]): unknown {
  const datas: Uint8Array[] = [];
  for (let part = 0; part < parts; part++) {
    const c = chunks[part] as Partial<MessageChunk> | undefined;
    if (!c || c.parts !== parts || !(c.data instanceof Uint8Array)) {
      throw new RecordError(runId, "(header)", `missing or malformed chunk ${part} of ${parts}`);
    }
    datas.push(c.data);
  }
  const joined = new Uint8Array(datas.reduce((n, d) => n + d.byteLength, 0));
  let at = 0;
  for (const d of datas) joined.set(d, at), at += d.byteLength;
  try {
    return JSON.parse(decoder.decode(joined));
  } catch (e) {
    throw new RecordError(runId, "(header)", `not valid UTF-8 JSON: ${(e as Error).message}`);
  }
}
