/**
 * The stored Stop of a run tree: one record under the tree's root, written
 * by whoever asks a tree to stop and read (or watched) by its executors.
 * Storage only; what an executor does about it is `runtime/stop_tree.ts`.
 *
 * @module
 */
import { decodeValue, encodeValue } from "./value_codec.ts";
import { stopKey } from "./keys.ts";

/** A stored stop request. */
export interface StopRequest {
  /** The tree's root. */
  rootId: string;
  /** Why (becomes every run's `interruption.reason`). */
  reason: string;
  /** Epoch ms of the request. */
  at: number;
}

function asRequest(stored: unknown): StopRequest | null {
  const v = decodeValue(stored) as Partial<StopRequest> | null;
  return v && typeof v.reason === "string" ? (v as StopRequest) : null;
}

/**
 * Stores `request` as the Stop of tree `request.rootId` (replacing any).
 *
 * @example
 * ```ts
 * import { readStop, writeStop } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * await writeStop(kv, { rootId: "root1", reason: "enough", at: Date.now() });
 * console.log((await readStop(kv, "root1"))?.reason); // enough
 * kv.close();
 * ```
 */
export async function writeStop(kv: Deno.Kv, request: StopRequest): Promise<void> {
  await kv.set(stopKey(request.rootId), encodeValue(request));
}

/**
 * The Stop recorded for tree `rootId`, or null.
 *
 * @example
 * ```ts
 * import { readStop } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await readStop(kv, "root1")); // null
 * kv.close();
 * ```
 */
export async function readStop(kv: Deno.Kv, rootId: string): Promise<StopRequest | null> {
  return asRequest((await kv.get(stopKey(rootId), { consistency: "strong" })).value);
}

/**
 * The version of the Stop recorded for tree `rootId` (null when there is
 * none), to hand to {@link clearStop} so it lifts only that Stop.
 *
 * @example
 * ```ts
 * import { stopVersion } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await stopVersion(kv, "root1")); // null
 * kv.close();
 * ```
 */
export async function stopVersion(kv: Deno.Kv, rootId: string): Promise<string | null> {
  return (await kv.get(stopKey(rootId), { consistency: "strong" })).versionstamp;
}

/**
 * Removes the Stop of tree `rootId`, so the tree can be resumed on purpose.
 * Given `seen` (from {@link stopVersion}, read before deciding to continue),
 * only that Stop is removed: one recorded since (or when there was none)
 * stays, so a Stop racing a verdict is never silently lost. True if a Stop
 * was removed.
 *
 * @example
 * ```ts
 * import { clearStop, readStop } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * await clearStop(kv, "root1");
 * console.log(await readStop(kv, "root1")); // null
 * kv.close();
 * ```
 */
export async function clearStop(
  kv: Deno.Kv,
  rootId: string,
  seen?: string | null,
): Promise<boolean> {
  const key = stopKey(rootId);
  if (seen === undefined) {
    const had = (await kv.get(key, { consistency: "strong" })).versionstamp !== null;
    await kv.delete(key);
    return had;
  }
  if (seen === null) return false;
  return (await kv.atomic().check({ key, versionstamp: seen }).delete(key).commit()).ok;
}

/**
 * The Stop of tree `rootId` as it changes (`kv.watch`: instant within a
 * process, blind to other processes' writes to a local SQLite file). Cancel
 * the stream to stop watching.
 *
 * @example
 * ```ts
 * import { watchStopRecord } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * const reader = watchStopRecord(kv, "root1").getReader();
 * console.log((await reader.read()).value); // null
 * await reader.cancel();
 * kv.close();
 * ```
 */
export function watchStopRecord(kv: Deno.Kv, rootId: string): ReadableStream<StopRequest | null> {
  return kv.watch([stopKey(rootId)]).pipeThrough(
    new TransformStream({ transform: (entries, out) => out.enqueue(asRequest(entries[0]?.value)) }),
  );
}
