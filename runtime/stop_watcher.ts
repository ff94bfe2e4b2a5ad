/**
 * One watcher of Stops per KV handle (and poll interval) for every run tree
 * executing in this isolate: one `kv.watch` of the Stop epoch (a counter
 * every Stop bumps, see kv/stop_record.ts) and one poll of it, instead of a
 * watch and a poll per tree. When the epoch moves, the Stops of all watched
 * trees are read (ten per `getMany`). Every {@link SWEEP_POLLS} polls they are
 * read anyway, so a Stop written without the epoch (by an older reins
 * sharing the database) is still seen, later.
 *
 * @module
 */
import { readStops, stopEpoch, type StopRequest, watchStopEpoch } from "../kv/stop_record.ts";

/** Polls between two reads of every watched tree's Stop whatever the epoch says. */
export const SWEEP_POLLS = 20;

/** Called with a tree's Stop once it is seen. */
type OnStop = (request: StopRequest) => void;

const watchers = new WeakMap<Deno.Kv, Map<number, StopWatcher>>();

/**
 * Calls `onStop` once a Stop of tree `rootId` is seen (at once if one is
 * recorded). Returns a disposer; the last disposer of a KV's watcher ends its
 * watch and poll and waits for them.
 *
 * @example
 * ```ts
 * import { onTreeStop } from "./stop_watcher.ts";
 * import { writeStop } from "../kv/stop_record.ts";
 * const kv = await Deno.openKv(":memory:");
 * const seen = Promise.withResolvers<string>();
 * const dispose = onTreeStop(kv, "root1", 100, (r) => seen.resolve(r.reason));
 * await writeStop(kv, { rootId: "root1", reason: "enough", at: Date.now() });
 * console.log(await seen.promise); // enough
 * await dispose();
 * kv.close();
 * ```
 */
export function onTreeStop(
  kv: Deno.Kv,
  rootId: string,
  pollMs: number,
  onStop: OnStop,
): () => Promise<void> {
  let byPoll = watchers.get(kv);
  if (!byPoll) watchers.set(kv, byPoll = new Map());
  let watcher = byPoll.get(pollMs);
  if (!watcher) {
    const created: StopWatcher = new StopWatcher(kv, pollMs, () => {
      if (byPoll.get(pollMs) === created) byPoll.delete(pollMs);
    });
    byPoll.set(pollMs, watcher = created);
  }
  return watcher.add(rootId, onStop);
}

/** Per KV handle, the Stops announced here and not yet written, by tree (the first wins). */
const announced = new WeakMap<Deno.Kv, Map<string, StopRequest>>();

/**
 * Hands `request` to this isolate's watchers of its tree over `kv` now, not
 * when a watch or poll sees it stored (a Stop asked for here stops the runs
 * executing here at once). Returns the Stop in effect: a Stop of the same tree
 * announced here and not yet written ({@link forgetAnnounced}) wins, as the
 * first stored Stop does, so concurrent Stops all record and report its reason.
 *
 * @example
 * ```ts
 * import { announceStop, onTreeStop } from "./stop_watcher.ts";
 * const kv = await Deno.openKv(":memory:");
 * const dispose = onTreeStop(kv, "root1", 100, (r) => console.log(r.reason));
 * announceStop(kv, { rootId: "root1", reason: "enough", at: Date.now() }); // enough
 * await dispose();
 * kv.close();
 * ```
 */
export function announceStop(kv: Deno.Kv, request: StopRequest): StopRequest {
  let byRoot = announced.get(kv);
  if (!byRoot) announced.set(kv, byRoot = new Map());
  const first = byRoot.get(request.rootId);
  if (first) return first;
  byRoot.set(request.rootId, request);
  for (const watcher of watchers.get(kv)?.values() ?? []) watcher.fire(request);
  return request;
}

/**
 * Forgets an announced Stop once it is written (or failed to be): the stored
 * record decides from then on.
 *
 * @example
 * ```ts
 * import { announceStop, forgetAnnounced } from "./stop_watcher.ts";
 * const kv = await Deno.openKv(":memory:");
 * const stop = announceStop(kv, { rootId: "root1", reason: "enough", at: 1 });
 * forgetAnnounced(kv, stop);
 * console.log(announceStop(kv, { rootId: "root1", reason: "again", at: 2 }).reason); // again
 * kv.close();
 * ```
 */
export function forgetAnnounced(kv: Deno.Kv, request: StopRequest): void {
  const byRoot = announced.get(kv);
  if (byRoot?.get(request.rootId) === request) byRoot.delete(request.rootId);
}

class StopWatcher {
  #roots = new Map<string, Set<OnStop>>();
  #epoch: string | null | undefined = undefined;
  #polls = 0;
  #checking: Promise<void> = Promise.resolve();
  #again = false;
  #timer: ReturnType<typeof setInterval>;
  #reader: ReadableStreamDefaultReader<string | null>;
  #watching: Promise<void>;
  #closed = false;

  constructor(private kv: Deno.Kv, pollMs: number, private onEmpty: () => void) {
    const reader = this.#reader = watchStopEpoch(kv).getReader();
    this.#watching = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          this.#sawEpoch(value);
        }
      } catch {
        // A closed KV ends the watch; the poll (or the disposer) takes over.
      }
    })();
    this.#timer = setInterval(() => this.#poll(), pollMs);
  }

  add(rootId: string, onStop: OnStop): () => Promise<void> {
    let set = this.#roots.get(rootId);
    if (!set) this.#roots.set(rootId, set = new Set());
    // Once: the announce, the watch, the poll and the sweep may each see the same Stop.
    let fired = false;
    const once: OnStop = (request) => {
      if (fired) return;
      fired = true;
      onStop(request);
    };
    set.add(once);
    this.#check([rootId]); // a Stop already recorded fires at once
    return async () => {
      set.delete(once);
      if (!set.size && this.#roots.get(rootId) === set) this.#roots.delete(rootId);
      if (this.#roots.size || this.#closed) return await this.#checking;
      this.#closed = true;
      this.onEmpty();
      clearInterval(this.#timer);
      await this.#reader.cancel().catch(() => {});
      await this.#watching;
      await this.#checking;
    };
  }

  /** Calls the watchers of tree `rootId` (by default `request`'s). */
  fire(request: StopRequest, rootId = request.rootId): void {
    for (const onStop of [...this.#roots.get(rootId) ?? []]) onStop(request);
  }

  #poll(): void {
    if (this.#closed) return;
    if (++this.#polls % SWEEP_POLLS === 0) return this.#check(null);
    this.#checking = this.#checking.then(async () => {
      if (this.#closed) return;
      this.#sawEpoch(await stopEpoch(this.kv));
    }).catch(() => {});
  }

  #sawEpoch(epoch: string | null): void {
    if (epoch === this.#epoch) return;
    this.#epoch = epoch;
    if (epoch !== null) this.#check(null);
  }

  /** Reads the Stops of `roots` (null: of every watched tree), one read at a time. */
  #check(roots: string[] | null): void {
    if (roots === null) {
      if (this.#again) return; // a full read is already queued
      this.#again = true;
    }
    this.#checking = this.#checking.then(async () => {
      if (roots === null) this.#again = false;
      const ids = roots ?? [...this.#roots.keys()];
      if (this.#closed || !ids.length) return;
      for (const [id, request] of await readStops(this.kv, ids)) this.fire(request, id);
    }).catch(() => {});
  }
}
