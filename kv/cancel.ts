/**
 * One Stop for a whole run tree, across processes: a cancel request stored
 * under the tree's root (`["cancel", rootId]`), watched by every executor of
 * any run of the tree. `kv.watch` is instant within a process (and across its
 * isolates) but does not see writes made by another process to the same
 * SQLite file, so the key is also polled (one `get` per interval) while a run
 * of the tree executes; whichever fires first aborts the local controller.
 *
 * @module
 */
import { RunNotFoundError } from "../harness/errors.ts";
import { cancelKey, runKey } from "./keys.ts";

/** A stored stop request. */
export interface StopRequest {
  /** The tree's root. */
  rootId: string;
  /** Why (becomes every run's `interruption.reason`). */
  reason: string;
  /** Epoch ms of the request. */
  at: number;
}

/** Options of {@link watchStop}. */
export interface WatchStopOptions {
  /** Poll interval in ms (default 100). */
  pollMs?: number;
}

function asRequest(value: unknown): StopRequest | null {
  const v = value as Partial<StopRequest> | null;
  return v && typeof v.reason === "string" ? (v as StopRequest) : null;
}

/**
 * The root id of the tree run `id` belongs to, read from its stored header
 * (`RunNotFoundError` if no such run).
 *
 * @example
 * ```ts
 * import { treeRootId } from "./cancel.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const s = newRun("hi");
 * await new KvRunStore(kv).save(s);
 * console.log(await treeRootId(kv, s.runId) === s.runId); // true
 * kv.close();
 * ```
 */
export async function treeRootId(kv: Deno.Kv, id: string): Promise<string> {
  const entry = await kv.get<{ rootId?: unknown }>(runKey(id), { consistency: "strong" });
  if (entry.versionstamp === null) throw new RunNotFoundError(id);
  const root = entry.value?.rootId;
  return typeof root === "string" && root ? root : id;
}

/**
 * Records a Stop for the tree of run `id` (the root, or any run in it):
 * every executor of a run of that tree aborts with `reason`, and a run of the
 * tree that starts afterwards does not start. Returns the request.
 *
 * @example
 * ```ts
 * import { requestStop } from "./cancel.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
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
  reason = "stopped by a person",
): Promise<StopRequest> {
  if (typeof reason !== "string" || !reason.trim()) {
    throw new TypeError("requestStop(kv, id, reason): reason must be a non-empty string");
  }
  const rootId = await treeRootId(kv, id);
  const request: StopRequest = { rootId, reason, at: Date.now() };
  await kv.set(cancelKey(rootId), request);
  return request;
}

/**
 * The Stop recorded for tree `rootId`, or null.
 *
 * @example
 * ```ts
 * import { readStop } from "./cancel.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await readStop(kv, "root1")); // null
 * kv.close();
 * ```
 */
export async function readStop(kv: Deno.Kv, rootId: string): Promise<StopRequest | null> {
  return asRequest((await kv.get(cancelKey(rootId), { consistency: "strong" })).value);
}

/**
 * The version of the Stop recorded for tree `rootId` (null when there is
 * none), to hand to {@link clearStop} so it lifts only that Stop.
 *
 * @example
 * ```ts
 * import { stopVersion } from "./cancel.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await stopVersion(kv, "root1")); // null
 * kv.close();
 * ```
 */
export async function stopVersion(kv: Deno.Kv, rootId: string): Promise<string | null> {
  return (await kv.get(cancelKey(rootId), { consistency: "strong" })).versionstamp;
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
 * import { clearStop, readStop } from "./cancel.ts";
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
  const key = cancelKey(rootId);
  if (seen === undefined) {
    const had = (await kv.get(key, { consistency: "strong" })).versionstamp !== null;
    await kv.delete(key);
    return had;
  }
  if (seen === null) return false;
  return (await kv.atomic().check({ key, versionstamp: seen }).delete(key).commit()).ok;
}

/**
 * Watches the Stop key of tree `rootId` (with `kv.watch` and a poll every
 * `pollMs`) and aborts `controller` with the request's reason on whichever
 * sees it first; a Stop already recorded fires at once. Returns an async
 * disposer that cancels the watch stream and the poll and waits for both.
 *
 * @example
 * ```ts
 * import { requestStop, watchStop } from "./cancel.ts";
 * import { KvRunStore } from "./kv_run_store.ts";
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
  const key = cancelKey(rootId);
  let disposed = false;
  const fire = (value: unknown) => {
    const request = asRequest(value);
    if (request && !controller.signal.aborted) controller.abort(request.reason);
  };
  const reader = kv.watch([key]).getReader();
  const watching = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        fire(value[0]?.value);
      }
    } catch {
      // A closed KV ends the watch; the poll (or the disposer) takes over.
    }
  })();
  let polling: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (disposed) return;
    polling = polling.then(async () => {
      if (disposed) return;
      fire((await kv.get(key, { consistency: "strong" })).value);
    }).catch(() => {});
  }, pollMs);
  return async () => {
    if (disposed) return;
    disposed = true;
    clearInterval(timer);
    await reader.cancel().catch(() => {});
    await Promise.all([watching, polling]);
  };
}
