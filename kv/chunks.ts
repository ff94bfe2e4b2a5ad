/**
 * Messages as chunks: each message is its JSON text as UTF-8 bytes, split
 * into chunks of at most {@link CHUNK_BYTES} (KV values hold 65,536 bytes).
 * Every chunk says how many parts its message has, so stray chunks left by a
 * save that lost a race are ignored rather than joined. Also: the byte
 * accounting that keeps an atomic under KV's limits.
 *
 * @module
 */
import type { ChatMessage } from "../harness/messages.ts";
import { RecordError } from "./record_error.ts";
import { parseMessage } from "./record.ts";
import { encodeChunk, encodeValue, type StoredChunk } from "./value_codec.ts";

/** Most bytes of message text in one KV value. */
export const CHUNK_BYTES = 60_000;
/** Bytes we let one atomic carry (KV allows 800 KiB; keys and encoding overhead need room). */
export const ATOMIC_BYTES = 640 * 1024;
/** Mutations we let one atomic carry (KV allows 1,000). */
export const ATOMIC_MUTATIONS = 900;

/** One stored chunk of a message (or of a header too large for one value). */
export type MessageChunk = StoredChunk;

/** A write, encoded, with its size. */
export interface Write {
  /** Where. */
  key: Deno.KvKey;
  /** What, as stored (see value_codec.ts). */
  value: Uint8Array;
  /** Estimated key + value bytes. */
  bytes: number;
  /** KV's `expireIn` (ms), for a record kept only so long (an idempotent answer). */
  expireIn?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Splits a message into chunks (one for most messages).
 *
 * @example
 * ```ts
 * import { encodeMessage } from "./chunks.ts";
 * console.log(encodeMessage({ role: "user", content: "x".repeat(130_000) }).length); // 3
 * ```
 */
export function encodeMessage(message: ChatMessage): MessageChunk[] {
  const bytes = encoder.encode(JSON.stringify(message));
  const parts = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES));
  const chunks: MessageChunk[] = [];
  for (let i = 0; i < parts; i++) {
    chunks.push({ parts, data: bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES) });
  }
  return chunks;
}

/**
 * Joins the stored chunks of message `seq` (indexed by part) and validates it.
 * Parts beyond what part 0 declares are strays and are ignored.
 *
 * @example
 * ```ts
 * import { decodeMessage, encodeMessage } from "./chunks.ts";
 * const chunks = encodeMessage({ role: "user", content: "hi" });
 * console.log(decodeMessage("r1", 0, chunks).content); // hi
 * ```
 */
export function decodeMessage(runId: string, seq: number, chunks: unknown[]): ChatMessage {
  const field = `messages.${seq}`;
  const first = chunks[0];
  if (!isChunk(first)) throw new RecordError(runId, field, "missing or malformed chunk 0");
  const datas: Uint8Array[] = [];
  for (let part = 0; part < first.parts; part++) {
    const c = chunks[part];
    if (!isChunk(c) || c.parts !== first.parts) {
      throw new RecordError(runId, field, `missing or malformed chunk ${part} of ${first.parts}`);
    }
    datas.push(c.data);
  }
  const joined = new Uint8Array(datas.reduce((n, d) => n + d.byteLength, 0));
  let at = 0;
  for (const d of datas) {
    joined.set(d, at);
    at += d.byteLength;
  }
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(joined));
  } catch (e) {
    throw new RecordError(runId, field, `not valid UTF-8 JSON: ${(e as Error).message}`);
  }
  return parseMessage(runId, seq, value);
}

function isChunk(c: unknown): c is MessageChunk {
  if (typeof c !== "object" || c === null) return false;
  const { parts, data } = c as Partial<MessageChunk>;
  return Number.isInteger(parts) && parts! >= 1 && data instanceof Uint8Array;
}

/**
 * Estimated encoded size of a KV key (tag + UTF-8 + terminator per string, 9 per number).
 *
 * @example
 * ```ts
 * import { keyBytes } from "./chunks.ts";
 * console.log(keyBytes(["run", "r1", "msg", 0, 0])); // 32
 * ```
 */
export function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    if (typeof part === "string") n += utf8Bytes(part) + 2;
    else if (part instanceof Uint8Array) n += part.byteLength + 2;
    else n += 9;
  }
  return n;
}

/** UTF-8 length of `s` without encoding it (every key of every write is measured). */
function utf8Bytes(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 2; // a pair: 4 bytes for 2 units
        i++;
      } else n += 2; // a lone surrogate is encoded as U+FFFD: 3 bytes
    } else n += 2;
  }
  return n;
}

/**
 * Stored size of a value, encoded as value_codec.ts does (UTF-8 JSON in an
 * envelope; a chunk's slice as it is), erring a little high.
 *
 * @example
 * ```ts
 * import { valueBytes } from "./chunks.ts";
 * console.log(valueBytes({ parts: 1, data: new Uint8Array(10) })); // 50
 * ```
 */
export function valueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (isChunk(value)) return value.data.byteLength + 40;
  return encoder.encode(JSON.stringify(value) ?? "").byteLength + 40;
}

/**
 * A write: `value` encoded as stored (see value_codec.ts), with its size.
 *
 * @example
 * ```ts
 * import { write } from "./chunks.ts";
 * console.log(write(["a"], "b").bytes > 0); // true
 * ```
 */
export function write(key: Deno.KvKey, value: unknown): Write {
  const stored = isChunk(value) ? encodeChunk(value) : encodeValue(value);
  return { key, value: stored, bytes: keyBytes(key) + stored.byteLength };
}

/**
 * Splits writes into batches under {@link ATOMIC_BYTES} and
 * {@link ATOMIC_MUTATIONS}, keeping `reserve` free in the last batch (for the
 * header, the indexes and the checks). Always returns at least one batch.
 *
 * @example
 * ```ts
 * import { planBatches, write } from "./chunks.ts";
 * const w = write(["a"], { parts: 1, data: new Uint8Array(60_000) });
 * console.log(planBatches(Array(30).fill(w), { bytes: 1000, mutations: 4 }).length); // 3
 * ```
 */
export function planBatches(
  writes: readonly Write[],
  reserve: { bytes: number; mutations: number },
): Write[][] {
  let current: Write[] = [];
  const batches = [current];
  let bytes = 0;
  for (const w of writes) {
    if (current.length && (bytes + w.bytes > ATOMIC_BYTES || current.length >= ATOMIC_MUTATIONS)) {
      current = [];
      batches.push(current);
      bytes = 0;
    }
    current.push(w);
    bytes += w.bytes;
  }
  if (
    current.length &&
    (bytes + reserve.bytes > ATOMIC_BYTES || current.length + reserve.mutations > ATOMIC_MUTATIONS)
  ) {
    batches.push([]);
  }
  return batches;
}
