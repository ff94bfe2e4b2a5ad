/**
 * How every value reins stores in Deno KV is encoded: as bytes any Deno ≥ 2.5
 * reads. Deno KV stores other values with V8's serializer, whose format an
 * older V8 cannot read (a value written by Deno 2.9 fails in Deno 2.5 with
 * `RangeError: could not deserialize value`); a `Uint8Array` is stored as
 * its bytes, by every version alike.
 *
 * A stored value is UTF-8 JSON: one line, the envelope
 * `{"$schemaVersion":1,"value":…}`; a chunk (a slice of a message's or a
 * header's JSON text) is the envelope `{"$schemaVersion":1,"parts":n}`, a
 * newline, then the slice's bytes as they are. Values stored the old way (by
 * V8's serializer, before this encoding) are read as they are.
 *
 * @module
 */

/** The version of this encoding, in every envelope. */
export const VALUE_SCHEMA_VERSION = 1;

/** One stored chunk: a slice of some JSON text and how many slices the whole has. */
export interface StoredChunk {
  /** How many chunks the whole has. */
  parts: number;
  /** This chunk's slice of the whole's UTF-8 JSON text. */
  data: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const NEWLINE = 0x0a;
/** How every envelope starts (`{"$schemaVersion":`), to tell it from other bytes. */
const MARK = encoder.encode('{"$schemaVersion":');

/**
 * The stored bytes of a JSON value (`TypeError` for what JSON cannot hold: a BigInt, a cycle).
 *
 * @example
 * ```ts
 * import { decodeValue, encodeValue } from "./value_codec.ts";
 * console.log(decodeValue(encodeValue({ owner: "w1" }))); // { owner: "w1" }
 * ```
 */
export function encodeValue(value: unknown): Uint8Array {
  // JSON.stringify throws a TypeError for a BigInt or a cycle; `undefined` reads back as such.
  const json = JSON.stringify(value);
  return json === undefined
    ? encoder.encode(`{"$schemaVersion":${VALUE_SCHEMA_VERSION}}`)
    : encodeJson(json);
}

/**
 * The stored bytes of a value already serialized to JSON text (the same bytes
 * {@link encodeValue} gives the value), for a caller that measured the text.
 *
 * @example
 * ```ts
 * import { decodeValue, encodeJson } from "./value_codec.ts";
 * console.log(decodeValue(encodeJson('{"n":1}'))); // { n: 1 }
 * ```
 */
export function encodeJson(json: string): Uint8Array {
  return encoder.encode(`{"$schemaVersion":${VALUE_SCHEMA_VERSION},"value":${json}}`);
}

/**
 * The stored bytes of a chunk: its envelope line, then its slice as it is.
 *
 * @example
 * ```ts
 * import { decodeValue, encodeChunk } from "./value_codec.ts";
 * const stored = encodeChunk({ parts: 1, data: new TextEncoder().encode('"hi"') });
 * console.log(decodeValue(stored)); // { parts: 1, data: Uint8Array(4) [ 34, 104, 105, 34 ] }
 * ```
 */
export function encodeChunk(chunk: StoredChunk): Uint8Array {
  const head = encoder.encode(
    `${JSON.stringify({ $schemaVersion: VALUE_SCHEMA_VERSION, parts: chunk.parts })}\n`,
  );
  const out = new Uint8Array(head.byteLength + chunk.data.byteLength);
  out.set(head);
  out.set(chunk.data, head.byteLength);
  return out;
}

/**
 * The value a stored value holds: a chunk as `{ parts, data }`, another value
 * as it was given to {@link encodeValue}. A value stored the old way (not
 * bytes), or bytes that are not an envelope, is returned as it is: the
 * caller's validation judges it. Throws a `RangeError` for an envelope that
 * is broken or of a later version.
 *
 * @example
 * ```ts
 * import { decodeValue } from "./value_codec.ts";
 * console.log(decodeValue("stored by V8's serializer")); // "stored by V8's serializer"
 * ```
 */
export function decodeValue(stored: unknown): unknown {
  if (!(stored instanceof Uint8Array) || !startsWithMark(stored)) return stored;
  const nl = stored.indexOf(NEWLINE);
  const line = nl < 0 ? stored : stored.subarray(0, nl);
  let envelope: { $schemaVersion?: unknown; value?: unknown; parts?: unknown };
  try {
    envelope = JSON.parse(decoder.decode(line));
  } catch (e) {
    throw new RangeError(`a stored value is not valid UTF-8 JSON: ${(e as Error).message}`);
  }
  if (envelope.$schemaVersion !== VALUE_SCHEMA_VERSION) {
    throw new RangeError(
      `a stored value has encoding $schemaVersion ${
        JSON.stringify(envelope.$schemaVersion)
      }; this reins reads ${VALUE_SCHEMA_VERSION}`,
    );
  }
  if (nl < 0) return envelope.value;
  return { parts: envelope.parts, data: stored.subarray(nl + 1) };
}

function startsWithMark(bytes: Uint8Array): boolean {
  if (bytes.byteLength < MARK.byteLength) return false;
  for (let i = 0; i < MARK.byteLength; i++) if (bytes[i] !== MARK[i]) return false;
  return true;
}
