/**
 * Leases: at most one live executor per run. A lease is `{ owner, expiresAt }`
 * under `leaseKey(id)`, changed only by atomics that check its versionstamp
 * (or the run's header: absent when it is created with its run, the holder's
 * when its exit save gives it up); an expired lease may be taken over, and
 * KV's `expireIn` removes it as a backstop.
 *
 * @module
 */
import { decodeValue, encodeValue } from "./value_codec.ts";
import { leaseKey } from "./keys.ts";
import { retryLocked } from "./retry.ts";

/** A lease as stored. */
export interface Lease {
  /** Who executes the run. */
  owner: string;
  /** Epoch ms after which anyone may take the lease over. */
  expiresAt: number;
  /** The holder's machine (absent in leases written before it was recorded, or when unknown). */
  host?: string;
  /** The holder's process id on `host` (absent like `host`). */
  pid?: number;
}

/** Where the holder of a lease runs, recorded with it so a dead holder can be recognised. */
export interface LeaseHolderInfo {
  /** The machine's hostname. */
  host?: string | undefined;
  /** The process id. */
  pid?: number | undefined;
}

function asLease(stored: unknown): Lease | null {
  const value = decodeValue(stored);
  if (typeof value !== "object" || value === null) return null;
  const { owner, expiresAt, host, pid } = value as Partial<Lease>;
  if (typeof owner !== "string" || typeof expiresAt !== "number") return null;
  const lease: Lease = { owner, expiresAt };
  if (typeof host === "string") lease.host = host;
  if (typeof pid === "number") lease.pid = pid;
  return lease;
}

function leaseValue(owner: string, ttlMs: number, info: LeaseHolderInfo): Lease {
  const value: Lease = { owner, expiresAt: Date.now() + ttlMs };
  if (info.host !== undefined) value.host = info.host;
  if (info.pid !== undefined) value.pid = info.pid;
  return value;
}

/**
 * Sets `owner`'s lease on run `id` for `ttlMs` in `op`, unchecked: for the
 * atomic that creates the run (checked against its header being absent), so
 * a run started where it is created costs no commit of its own for its lease.
 *
 * @example
 * ```ts
 * import { leaseHolder, setLease } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * await setLease(kv.atomic(), "r1", "a", 1000).commit();
 * console.log((await leaseHolder(kv, "r1"))?.owner); // a
 * kv.close();
 * ```
 */
export function setLease(
  op: Deno.AtomicOperation,
  id: string,
  owner: string,
  ttlMs: number,
  info: LeaseHolderInfo = {},
): Deno.AtomicOperation {
  checkTtl(ttlMs);
  return op.set(leaseKey(id), encodeValue(leaseValue(owner, ttlMs, info)), { expireIn: ttlMs });
}

/**
 * The stored entry of `owner`'s lease on run `id` (to check in an atomic
 * that deletes it), or null when `owner` does not hold it.
 *
 * @example
 * ```ts
 * import { acquireLease, heldLease } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * await acquireLease(kv, "r1", "a", 1000);
 * console.log((await heldLease(kv, "r1", "a"))?.versionstamp !== undefined); // true
 * console.log(await heldLease(kv, "r1", "b")); // null
 * kv.close();
 * ```
 */
export async function heldLease(
  kv: Deno.Kv,
  id: string,
  owner: string,
): Promise<Deno.KvEntry<unknown> | null> {
  const entry = await kv.get(leaseKey(id), { consistency: "strong" });
  return entry.versionstamp !== null && asLease(entry.value)?.owner === owner ? entry : null;
}

/**
 * This machine's hostname, or undefined when the process may not read it
 * (no `--allow-sys=hostname`): never prompts.
 *
 * @example
 * ```ts
 * import { localHostname } from "./leases.ts";
 * console.log(typeof (localHostname() ?? "")); // string
 * ```
 */
export function localHostname(): string | undefined {
  // Read once: every store a server makes (one per request and per execution) asks.
  if (hostname !== undefined) return hostname;
  try {
    const p = Deno.permissions.querySync({ name: "sys", kind: "hostname" });
    return p.state === "granted" ? hostname = Deno.hostname() : undefined;
  } catch {
    return undefined;
  }
}

/** This machine's hostname once read (never while the permission is missing). */
let hostname: string | undefined;

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`lease ttlMs must be a positive number, got ${ttlMs}`);
  }
}

/**
 * The live (unexpired) lease of a run, or null.
 *
 * @example
 * ```ts
 * import { leaseHolder } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await leaseHolder(kv, "r1")); // null
 * kv.close();
 * ```
 */
export async function leaseHolder(kv: Deno.Kv, id: string): Promise<Lease | null> {
  const lease = asLease((await kv.get(leaseKey(id), { consistency: "strong" })).value);
  return lease && lease.expiresAt > Date.now() ? lease : null;
}

/**
 * Takes the lease of a run for `ttlMs`: true when it is free, expired, or
 * already `owner`'s (then it is extended); false when another owner holds
 * it. `info` (host, pid) is stored with it.
 *
 * @example
 * ```ts
 * import { acquireLease } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await acquireLease(kv, "r1", "a", 1000), await acquireLease(kv, "r1", "b", 1000)); // true false
 * kv.close();
 * ```
 */
export async function acquireLease(
  kv: Deno.Kv,
  id: string,
  owner: string,
  ttlMs: number,
  info: LeaseHolderInfo = {},
): Promise<boolean> {
  checkTtl(ttlMs);
  for (;;) {
    const entry = await kv.get(leaseKey(id), { consistency: "strong" });
    const lease = asLease(entry.value);
    if (lease && lease.owner !== owner && lease.expiresAt > Date.now()) return false;
    const value = leaseValue(owner, ttlMs, info);
    const op = kv.atomic().check(entry).set(leaseKey(id), encodeValue(value), { expireIn: ttlMs });
    const res = await retryLocked(() => op.commit());
    if (res.ok) return true;
    // Someone changed it between our read and write: look again.
  }
}

/**
 * Extends `owner`'s lease by `ttlMs`; false when `owner` no longer holds it.
 *
 * @example
 * ```ts
 * import { acquireLease, renewLease } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * await acquireLease(kv, "r1", "a", 1000);
 * console.log(await renewLease(kv, "r1", "a", 1000), await renewLease(kv, "r1", "b", 1000)); // true false
 * kv.close();
 * ```
 */
export async function renewLease(
  kv: Deno.Kv,
  id: string,
  owner: string,
  ttlMs: number,
  info: LeaseHolderInfo = {},
): Promise<boolean> {
  checkTtl(ttlMs);
  const entry = await kv.get(leaseKey(id), { consistency: "strong" });
  const lease = asLease(entry.value);
  if (!lease || lease.owner !== owner) return false;
  const value = leaseValue(owner, ttlMs, info);
  const op = kv.atomic().check(entry).set(leaseKey(id), encodeValue(value), { expireIn: ttlMs });
  return (await retryLocked(() => op.commit())).ok;
}

/** Leases renewed per atomic (a check and a set each; KV allows 100 checks). */
const RENEW_PER_ATOMIC = 50;

/**
 * Extends `owner`'s leases on `ids` by `ttlMs`, 50 per atomic: for each id,
 * whether `owner` still holds it. An atomic refused (one lease changed
 * meanwhile) is retried one lease at a time. Throws on a KV failure.
 *
 * @example
 * ```ts
 * import { acquireLease, renewLeases } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * await acquireLease(kv, "r1", "a", 1000);
 * await acquireLease(kv, "r2", "b", 1000);
 * console.log(await renewLeases(kv, ["r1", "r2"], "a", 1000)); // Map(2) { "r1" => true, "r2" => false }
 * kv.close();
 * ```
 */
export async function renewLeases(
  kv: Deno.Kv,
  ids: readonly string[],
  owner: string,
  ttlMs: number,
  info: LeaseHolderInfo = {},
): Promise<Map<string, boolean>> {
  checkTtl(ttlMs);
  const reads: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    reads.push(kv.getMany(ids.slice(i, i + 10).map(leaseKey), { consistency: "strong" }));
  }
  const entries = (await Promise.all(reads)).flat();
  const held = new Map<string, boolean>();
  const mine: [string, Deno.KvEntryMaybe<unknown>][] = [];
  // getMany answers one entry per key, in order; a missing one is not held.
  ids.forEach((id, i) => {
    const e = entries[i];
    if (e && asLease(e.value)?.owner === owner) mine.push([id, e]);
    else held.set(id, false);
  });
  for (let i = 0; i < mine.length; i += RENEW_PER_ATOMIC) {
    const batch = mine.slice(i, i + RENEW_PER_ATOMIC);
    const op = kv.atomic();
    for (const [id, entry] of batch) {
      const value = encodeValue(leaseValue(owner, ttlMs, info));
      op.check(entry).set(leaseKey(id), value, { expireIn: ttlMs });
    }
    if ((await retryLocked(() => op.commit())).ok) {
      for (const [id] of batch) held.set(id, true);
    } else {
      for (const [id] of batch) held.set(id, await renewLease(kv, id, owner, ttlMs, info));
    }
  }
  return held;
}

/**
 * Gives up `owner`'s lease; false (and nothing changes) when someone else holds it.
 *
 * @example
 * ```ts
 * import { acquireLease, releaseLease } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * await acquireLease(kv, "r1", "a", 1000);
 * console.log(await releaseLease(kv, "r1", "b"), await releaseLease(kv, "r1", "a")); // false true
 * kv.close();
 * ```
 */
export async function releaseLease(kv: Deno.Kv, id: string, owner: string): Promise<boolean> {
  const entry = await heldLease(kv, id, owner);
  if (!entry) return false;
  const op = kv.atomic().check(entry).delete(leaseKey(id));
  return (await retryLocked(() => op.commit())).ok;
}
