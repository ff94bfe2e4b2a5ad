/**
 * Reading a stored run's parts: its full header (a preview's chunks joined)
 * and its message chunks by message number. `KvRunStore` validates what they return.
 *
 * @module
 */
import { RecordError } from "./record_error.ts";
import { headerChunkPrefix, messagePrefix } from "./keys.ts";
import { parseHeader, type StoredHeader } from "./record.ts";
import { joinHeader, overflowParts } from "./header_chunks.ts";
import { decodeValue } from "./value_codec.ts";

/**
 * The full header a stored run key's value is, or points at (a preview's
 * chunks), validated (`RecordError`).
 *
 * @example
 * ```ts
 * import { readHeader } from "./run_reader.ts";
 * import { toHeader } from "./record.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const s = newRun("hi");
 * console.log((await readHeader(kv, s.runId, toHeader(s))).messageCount); // 1
 * kv.close();
 * ```
 */
export async function readHeader(kv: Deno.Kv, id: string, value: unknown): Promise<StoredHeader> {
  const parts = overflowParts(value);
  if (parts === null) return parseHeader(id, value);
  parseHeader(id, value); // the preview must be valid too
  const chunks: unknown[] = [];
  for await (const e of kv.list({ prefix: headerChunkPrefix(id) }, { consistency: "strong" })) {
    const part = e.key[3];
    if (typeof part === "number" && part < parts) chunks[part] = decodeValue(e.value);
  }
  return parseHeader(id, joinHeader(id, parts, chunks));
}

/**
 * The stored chunks of messages `from .. to - 1` of run `id`, by message number.
 *
 * @example
 * ```ts
 * import { readChunks } from "./run_reader.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log((await readChunks(kv, "r1", 0, 5)).size); // 0
 * kv.close();
 * ```
 */
export async function readChunks(
  kv: Deno.Kv,
  id: string,
  from: number,
  to: number,
): Promise<Map<number, unknown[]>> {
  const chunks = new Map<number, unknown[]>();
  const prefix = messagePrefix(id);
  const selector = { start: [...prefix, from], end: [...prefix, to] };
  for await (const e of kv.list(selector, { consistency: "strong", batchSize: 500 })) {
    const [seq, part] = [e.key[3], e.key[4]];
    if (!Number.isInteger(seq) || !Number.isInteger(part)) {
      throw new RecordError(id, "messages", `unexpected key ${JSON.stringify(e.key)}`);
    }
    const list = chunks.get(seq as number) ?? [];
    list[part as number] = decodeValue(e.value);
    chunks.set(seq as number, list);
  }
  return chunks;
}
