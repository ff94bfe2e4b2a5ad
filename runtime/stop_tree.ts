/**
 * One Stop for a whole run tree, across processes: a stop request stored
 * under the tree's root (`kv/stop_record.ts`), watched by every executor of
 * any run of the tree. Each Stop also bumps one epoch key, which one watcher
 * per KV handle watches and polls for all the trees executing here
 * (runtime/stop_watcher.ts): `kv.watch` is instant within a process (and
 * across its isolates) but does not see writes made by another process to
 * the same SQLite file, which the poll catches; whichever fires first aborts
 * the local controller.
 *
 * @module
 */
import { KvRunStore } from "../kv/kv_run_store.ts";
import { type StopRequest, writeStop } from "../kv/stop_record.ts";
import { announceStop, forgetAnnounced, onTreeStop } from "./stop_watcher.ts";

/** The default reason of a Stop. */
export const DEFAULT_STOP_REASON = "stopped by a person";

/** Options of {@link watchStop}. */
export interface WatchStopOptions {
  /** Poll interval in ms (default 100). */
  pollMs?: number | undefined;
}

/**
 * Records a Stop for the tree of run `id` (the root, or any run in it):
 * every executor of a run of that tree aborts with `reason` (those in this
 * isolate at once, before the record is written), and a run of the tree that
 * starts afterwards does not start. `RunNotFoundError` for an
 * unknown run. Returns the Stop recorded: of concurrent Stops (or one
 * recorded before and not lifted), the first wins, and all report it.
 *
 * @example
 * ```ts
 * import { requestStop } from "./stop_tree.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const s = newRun("hi");
 * await new KvRunStore(kv).save(s);
 * console.log((await requestStop(kv, s.runId, "closing time")).reason); // closing time
 * kv.close();
 * ```
 */
export async function requestStop(
  kv: Deno.Kv,
  id: string,
  reason: string = DEFAULT_STOP_REASON,
): Promise<StopRequest> {
  if (typeof reason !== "string" || !reason.trim()) {
    throw new TypeError("requestStop(kv, id, reason): reason must be a non-empty string");
  }
  // A tree executing in this isolate stops at once: under load the KV's commits
  // queue, and its Stop would wait for the read and the write below.
  // Concurrent Stops of one tree: the first announced or stored wins, for all.
  const mine: StopRequest[] = [{ rootId: id, reason, at: Date.now() }];
  const first = announceStop(kv, mine[0]!);
  try {
    const { rootId } = await new KvRunStore(kv).summary(id);
    if (rootId === id) return await writeStop(kv, first);
    mine.push({ ...first, rootId });
    return await writeStop(kv, announceStop(kv, mine[1]!));
  } finally {
    // Only the Stops this call announced: another's stays until its own write ends.
    for (const request of mine) forgetAnnounced(kv, request);
  }
}

/**
 * Watches the Stop of tree `rootId` (through the KV handle's one watcher: a
 * `kv.watch` and a poll every `pollMs` of the Stop epoch) and aborts
 * `controller` with the request's reason once it is seen; a Stop already
 * recorded fires at once. Returns an async disposer (the last one of the
 * handle's watcher ends its watch and poll and waits for both).
 *
 * @example
 * ```ts
 * import { requestStop, watchStop } from "./stop_tree.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const s = newRun("hi");
 * await new KvRunStore(kv).save(s);
 * const controller = new AbortController();
 * const dispose = watchStop(kv, s.rootId, controller, { pollMs: 50 });
 * const aborted = new Promise((r) => controller.signal.addEventListener("abort", r));
 * await requestStop(kv, s.runId, "enough");
 * await aborted;
 * await dispose();
 * console.log(controller.signal.reason); // enough
 * kv.close();
 * ```
 */
export function watchStop(
  kv: Deno.Kv,
  rootId: string,
  controller: AbortController,
  options: WatchStopOptions = {},
): () => Promise<void> {
  const pollMs = options.pollMs ?? 100;
  if (!(pollMs > 0)) throw new RangeError(`watchStop: pollMs must be positive, got ${pollMs}`);
  return onTreeStop(kv, rootId, pollMs, (request) => {
    if (!controller.signal.aborted) controller.abort(request.reason);
  });
}
