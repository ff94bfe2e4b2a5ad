/**
 * The stored Stop of a run tree: one record under the tree's root, written
 * by whoever asks a tree to stop and read (or watched) by its executors.
 * Storage only; what an executor does about it is `runtime/stop_tree.ts`.
 *
 * @module
 */
import { retryLocked } from "./retry.ts";
import { decodeValue, encodeValue } from "./value_codec.ts";
import { stopEpochKey, stopKey } from "./keys.ts";

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
 * Stores `request` as the Stop of tree `request.rootId`, unless one is
 * recorded already: the first Stop wins (the tree stops with its reason), and
 * the one recorded is returned, so every caller can say which.
 *
 * @example
 * ```ts
 * import { readStop, writeStop } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * await writeStop(kv, { rootId: "root1", reason: "enough", at: Date.now() });
 * console.log((await writeStop(kv, { rootId: "root1", reason: "later", at: Date.now() })).reason); // enough
 * console.log((await readStop(kv, "root1"))?.reason); // enough
 * kv.close();
 * ```
 */
export async function writeStop(kv: Deno.Kv, request: StopRequest): Promise<StopRequest> {
  const key = stopKey(request.rootId);
  let seen: string | null = null; // most trees have no Stop yet: write first, read if refused
  for (;;) {
    // The epoch moves with the record: watchers of many trees read it, not every record.
    // Checked, the write reads under SQLite's lock: another process's writer may hold it.
    const written = await retryLocked(() =>
      kv.atomic().check({ key, versionstamp: seen })
        .set(key, encodeValue(request)).sum(stopEpochKey(), 1n).commit()
    );
    if (written.ok) return request;
    const entry = await kv.get(key, { consistency: "strong" });
    const recorded = asRequest(entry.value);
    if (recorded) return recorded;
    seen = entry.versionstamp; // lifted meanwhile, or not a Stop: replaced
  }
}

/**
 * The Stops recorded for `rootIds` (those without one are absent), read ten
 * keys per `getMany`.
 *
 * @example
 * ```ts
 * import { readStops, writeStop } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * await writeStop(kv, { rootId: "r2", reason: "enough", at: 1 });
 * console.log([...(await readStops(kv, ["r1", "r2"])).keys()]); // ["r2"]
 * kv.close();
 * ```
 */
export async function readStops(
  kv: Deno.Kv,
  rootIds: readonly string[],
): Promise<Map<string, StopRequest>> {
  const out = new Map<string, StopRequest>();
  const reads: Promise<void>[] = [];
  for (let i = 0; i < rootIds.length; i += 10) {
    const ids = rootIds.slice(i, i + 10);
    reads.push(
      kv.getMany(ids.map(stopKey), { consistency: "strong" }).then((entries) =>
        // One entry per key, in order.
        ids.forEach((id, j) => {
          const request = asRequest(entries[j]?.value);
          if (request) out.set(id, request);
        })
      ),
    );
  }
  await Promise.all(reads);
  return out;
}

/**
 * The version of the Stop epoch (see {@link writeStop}): it changes whenever
 * a Stop is recorded. Null before the first.
 *
 * @example
 * ```ts
 * import { stopEpoch, writeStop } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * const before = await stopEpoch(kv);
 * await writeStop(kv, { rootId: "r1", reason: "enough", at: 1 });
 * console.log(before === null, (await stopEpoch(kv)) !== null); // true true
 * kv.close();
 * ```
 */
export async function stopEpoch(kv: Deno.Kv): Promise<string | null> {
  return (await kv.get(stopEpochKey(), { consistency: "strong" })).versionstamp;
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
 * The Stop epoch's versions as they change (the first at once): instant for
 * writes in this process and its isolates (and on Deno Deploy), not for
 * another process's writes to the same SQLite file (poll {@link stopEpoch}).
 *
 * @example
 * ```ts
 * import { watchStopEpoch } from "./stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * const reader = watchStopEpoch(kv).getReader();
 * console.log((await reader.read()).value); // null
 * await reader.cancel();
 * kv.close();
 * ```
 */
export function watchStopEpoch(kv: Deno.Kv): ReadableStream<string | null> {
  return kv.watch([stopEpochKey()]).pipeThrough(
    new TransformStream({ transform: (entries, out) => out.enqueue(entries[0].versionstamp) }),
  );
}
