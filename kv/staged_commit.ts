/**
 * The commits of one save: the staging atomics of a large turn, the last
 * atomic (header, indexes, held trace events, and a lease taken or given up
 * with it), and the commit that names the run when KV refuses a value as too large.
 *
 * @module
 */
import { retryLocked } from "./retry.ts";
import { leaseKey, runKey, stagingKey } from "./keys.ts";
import { encodeValue } from "./value_codec.ts";
import { planBatches, type Write } from "./chunks.ts";
import { type EventWrite, type HeldCommit, storedEvent } from "./events.ts";
import { heldLease } from "./leases.ts";

/** A key's expected versionstamp, as `atomic().check()` takes it. */
type Check = { key: Deno.KvKey; versionstamp: string | null };

/**
 * Large turns: atomics before the save's last one stage chunks past the stored
 * messageCount (ignored on load if the final commit fails), holding the
 * staging key so two such saves cannot interleave. Returns the staging key's
 * check for the final commit (null when nothing was staged) and the bytes
 * written, or null when the run moved on.
 */
export async function stageBatches(
  kv: Deno.Kv,
  id: string,
  check: Check,
  batches: readonly (readonly Write[])[],
  owner: string,
): Promise<{ staging: Check | null; bytes: number } | null> {
  let staging: Check | null = null;
  let bytes = 0;
  for (const batch of batches) {
    staging ??= await kv.get(stagingKey(id), { consistency: "strong" });
    const op = kv.atomic().check(check, staging);
    for (const w of batch) op.set(w.key, w.value);
    const mark = encodeValue({ owner, at: Date.now() });
    const res = await commit(id, op.set(stagingKey(id), mark));
    if (!res.ok) return null;
    staging = { key: stagingKey(id), versionstamp: res.versionstamp };
    bytes += batch.reduce((n, w) => n + w.bytes, 0);
  }
  return { staging, bytes };
}

/** Commits (retrying while the file is locked), naming the run when KV refuses a value as too large. */
export async function commit(
  id: string,
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  try {
    return await retryLocked(() => op.commit());
  } catch (e) {
    if (!(e instanceof Error) || !/too large/i.test(e.message)) throw e;
    throw new RangeError(
      `save("${id}"): ${e.message}; one commit holds at most 800 KiB`,
      { cause: e },
    );
  }
}

/** One save's writes, as `planSave` planned them, and what else its last atomic does. */
export interface SaveWrites {
  /** The run. */
  id: string;
  /** The header's expected versionstamp (null: a new run). */
  check: Check;
  /** New message chunks, in order. */
  writes: readonly Write[];
  /** The header and new index keys. */
  final: readonly Write[];
  /** Index keys to delete. */
  drops: readonly Deno.KvKey[];
  /** Bytes kept free in the last atomic for `final` and `drops`. */
  reserve: number;
  /** Who saves (in the staging key of a large turn). */
  owner: string;
  /** Adds a lease to the last atomic (a new run about to execute where it is created). */
  lease?: ((op: Deno.AtomicOperation) => void) | undefined;
  /** Gives up this owner's lease in the last atomic, if they still hold it. */
  release?: string | undefined;
}

/** What a committed save reports: its header's versionstamp, its bytes, whether the lease went. */
export interface SaveCommitted {
  versionstamp: string;
  bytes: number;
  released: boolean;
}

/**
 * Commits a save (see `KvRunStore.save`) with `events`, the run's held trace
 * events, in its last atomic; as `KvEventLog.withHeld` expects it: refused, it
 * says whether only an event seq was taken (the header unchanged), so it is
 * retried with fresh seqs and a fresh read of the lease to give up.
 */
export async function commitSave(
  kv: Deno.Kv,
  events: readonly EventWrite[],
  save: SaveWrites,
): Promise<HeldCommit<SaveCommitted | null>> {
  const { id, check, final, drops } = save;
  const batches = planBatches(save.writes, {
    bytes: save.reserve + events.reduce((n, e) => n + e.bytes, 0),
    mutations: final.length + drops.length + 2 + events.length,
  });
  const staged = await stageBatches(kv, id, check, batches.slice(0, -1), save.owner);
  if (!staged) return { ok: false, seqTaken: false, value: null };
  let { staging, bytes } = staged;
  const op = kv.atomic().check(check);
  if (staging) op.check(staging).delete(stagingKey(id));
  // The last batch goes with the header (planBatches always returns one).
  for (const w of [...(batches.at(-1) ?? []), ...final]) {
    op.set(w.key, w.value, w.expireIn === undefined ? undefined : { expireIn: w.expireIn });
    bytes += w.bytes;
  }
  for (const e of events) {
    op.set(e.key, storedEvent(e.value));
    bytes += e.bytes;
  }
  for (const e of events) op.check({ key: e.key, versionstamp: null });
  for (const k of drops) op.delete(k);
  save.lease?.(op);
  // Read at each attempt: a renewal between this read and the commit refuses it.
  const lease = save.release === undefined ? null : await heldLease(kv, id, save.release);
  if (lease) op.check(lease).delete(leaseKey(id));
  const res = await commit(id, op);
  if (res.ok) {
    return { ok: true, value: { versionstamp: res.versionstamp, bytes, released: !!lease } };
  }
  // Refused: the run moved on (a conflict), or only an event seq (or the lease) changed.
  const now = await kv.get(runKey(id), { consistency: "strong" });
  return { ok: false, seqTaken: now.versionstamp === check.versionstamp, value: null };
}
