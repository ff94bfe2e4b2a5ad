/**
 * Every KV entry of a run, as plain JSON and back: for fixtures of stored
 * records (a schema change that breaks old records fails their test) and for
 * copying runs between databases. Bytes (message chunks) are written as
 * `{ "$bytes": "<base64>" }`.
 *
 * @module
 */
import { runKey, stopKey } from "./keys.ts";
import { looseIndexKeys } from "./indexes.ts";
import { decodeValue } from "./value_codec.ts";

/** One stored KV entry, as JSON. */
export interface DumpedEntry {
  /** The key, as stored. */
  key: (string | number)[];
  /** The value, bytes as `{ $bytes: base64 }`. */
  value: unknown;
}

function encodeBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function decodeBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function toJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: encodeBase64(value) };
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  return value;
}

function fromJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJson);
  if (typeof value === "object" && value !== null) {
    const v = value as Record<string, unknown>;
    if (typeof v["$bytes"] === "string" && Object.keys(v).length === 1) {
      return decodeBase64(v["$bytes"]);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromJson(x)]));
  }
  return value;
}

/**
 * Every entry of run `id`: its own keys (header, messages, events, lease,
 * settings), its index entries and its tree's Stop when it is a root.
 *
 * @example
 * ```ts
 * import { dumpRun } from "./record_dump.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const s = newRun("hi");
 * await new KvRunStore(kv).save(s);
 * console.log((await dumpRun(kv, s.runId)).length); // 4 (header, message, two indexes)
 * kv.close();
 * ```
 */
export async function dumpRun(kv: Deno.Kv, id: string): Promise<DumpedEntry[]> {
  const out: DumpedEntry[] = [];
  const add = (key: Deno.KvKey, value: unknown) =>
    out.push({ key: key as (string | number)[], value: toJson(value) });
  for await (const e of kv.list({ prefix: runKey(id) }, { consistency: "strong" })) {
    add(e.key, e.value);
  }
  const header = await kv.get(runKey(id), { consistency: "strong" });
  if (header.versionstamp !== null) add(header.key, header.value);
  const extra = [...looseIndexKeys(id, decodeValue(header.value)), stopKey(id)];
  for (const e of await kv.getMany(extra, { consistency: "strong" })) {
    if (e.versionstamp !== null) add(e.key, e.value);
  }
  return out;
}

/**
 * Writes dumped entries into `kv` as they were (overwriting what is there).
 *
 * @example
 * ```ts
 * import { dumpRun, restoreEntries } from "./record_dump.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const a = await Deno.openKv(":memory:");
 * const b = await Deno.openKv(":memory:");
 * const s = newRun("hi");
 * await new KvRunStore(a).save(s);
 * await restoreEntries(b, await dumpRun(a, s.runId));
 * console.log((await new KvRunStore(b).load(s.runId)).messages[0].content); // hi
 * a.close();
 * b.close();
 * ```
 */
export async function restoreEntries(kv: Deno.Kv, entries: readonly DumpedEntry[]): Promise<void> {
  for (const e of entries) await kv.set(e.key, fromJson(e.value));
}
