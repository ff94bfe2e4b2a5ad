/**
 * Waiting for another executor's lease on a run before continuing it by
 * hand (the CLI's `--resume`, `--approve`, `--reject` after a crash): a
 * holder that is provably dead (a process on this machine that no longer
 * exists) is taken over at once; any other holder is waited for, with
 * progress, until its lease lapses or the wait runs out.
 *
 * @module
 */
import { RunConflictError } from "../harness/errors.ts";
import { sleep } from "../harness/sleep.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import type { Lease } from "../kv/leases.ts";
import { holderGone } from "./holder_gone.ts";

/** Options of {@link awaitLease}. */
export interface AwaitLeaseOptions {
  /** Longest wait in ms (default: the lease's remaining time + {@link LEASE_MARGIN_MS}). */
  waitMs?: number | undefined;
  /** Receives one line when the wait starts, then one every `progressMs`. */
  onWait?: ((line: string) => void) | undefined;
  /** How often the lease is read again, in ms (default 250). */
  pollMs?: number | undefined;
  /** How often a progress line is sent, in ms (default 5000). */
  progressMs?: number;
  /** Whether the holder is provably gone (default `holderGone` of holder_gone.ts). */
  isGone?: (lease: Lease) => boolean;
  /** Aborts the wait. */
  signal?: AbortSignal;
}

/** Added to a lease's remaining time for the default wait, in ms. */
export const LEASE_MARGIN_MS = 2_000;

function describe(lease: Lease): string {
  const where = lease.host !== undefined && lease.pid !== undefined
    ? ` (pid ${lease.pid} on ${lease.host})`
    : "";
  return `${lease.owner}${where}`;
}

const seconds = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))} s`;

/**
 * Resolves once run `id` has no live lease: at once when it has none; after
 * releasing it when its holder is provably dead; otherwise after waiting for
 * it to lapse (progress lines to `onWait`). Throws `RunConflictError` naming
 * the holder and when its lease lapses if it is still held after the wait.
 *
 * @example
 * ```ts
 * import { awaitLease } from "./await_lease.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * await new KvRunStore(kv, { owner: "other", leaseMs: 300 }).acquireLease("r1");
 * await awaitLease(store, "r1", { onWait: console.log });
 * console.log(await store.leaseHolder("r1")); // null
 * kv.close();
 * ```
 */
export async function awaitLease(
  store: KvRunStore,
  id: string,
  options: AwaitLeaseOptions = {},
): Promise<void> {
  const { onWait, pollMs = 250, progressMs = 5_000, isGone = (l: Lease) => holderGone(l) } =
    options;
  let lease = await store.leaseHolder(id);
  if (!lease || lease.owner === store.owner) return;
  const started = Date.now();
  const deadline = started + (options.waitMs ?? lease.expiresAt - started + LEASE_MARGIN_MS);
  let nextProgress = started;
  while (lease && lease.owner !== store.owner) {
    if (isGone(lease)) {
      onWait?.(`run ${id}: its lease holder ${describe(lease)} is gone; taking over`);
      await store.releaseLease(id, lease.owner);
    } else {
      const now = Date.now();
      if (now >= deadline) {
        throw new RunConflictError(
          id,
          `run is being executed by ${describe(lease)}; its lease lapses in ${
            seconds(lease.expiresAt - now)
          } unless renewed (gave up after ${seconds(now - started)})`,
        );
      }
      if (now >= nextProgress) {
        onWait?.(
          `run ${id}: waiting for the lease of ${describe(lease)}, which lapses in ${
            seconds(lease.expiresAt - now)
          } (giving up in ${seconds(deadline - now)})`,
        );
        nextProgress = now + progressMs;
      }
      await sleep(Math.min(pollMs, Math.max(1, deadline - now)), options.signal);
    }
    lease = await store.leaseHolder(id);
  }
}
