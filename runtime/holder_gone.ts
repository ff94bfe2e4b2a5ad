/**
 * Whether a lease's holder is provably dead, so its lease may be taken over
 * at once instead of lapsing: it ran on this machine (same hostname) and its
 * process no longer exists.
 *
 * The question goes to the operating system, with the permissions the tasks
 * already have: `kill(pid, 0)` (no signal is sent; ESRCH means no such
 * process) needs `--allow-run`, which every task running runs has (tools run
 * commands); `/proc/<pid>/stat`, which also sees a zombie as dead, is read
 * when Deno allows it (only under `--allow-all`). Neither a heartbeat in KV
 * (writes every second, and a busy event loop would look dead) nor a lock
 * file (an open resource per process) is needed.
 *
 * @module
 */
import { type Lease, localHostname } from "../kv/leases.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";

function granted(desc: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** From /proc: true (gone), false (alive), undefined (cannot read /proc). */
function goneByProc(pid: number): boolean | undefined {
  try {
    if (!Deno.statSync("/proc/self").isDirectory) return undefined;
  } catch {
    return undefined; // no /proc, or Deno refuses it (it asks for --allow-all)
  }
  try {
    // "pid (comm) S ...": a zombie (Z) or dead (X) process is gone.
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch (e) {
    return e instanceof Deno.errors.NotFound ? true : undefined;
  }
}

/** From kill(pid, 0): true (ESRCH), false (exists, or not ours), undefined (not allowed). */
function goneByKill(pid: number): boolean | undefined {
  if (Deno.build.os === "windows" || !granted({ name: "run" })) return undefined;
  try {
    Deno.kill(pid, 0 as unknown as Deno.Signal); // signal 0: the existence check only
    return false;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return true;
    return e instanceof Deno.errors.PermissionDenied ? false : undefined;
  }
}

/**
 * Whether the lease's holder is provably dead: it ran on this machine (same
 * hostname) and its process no longer exists (or is a zombie). False when
 * that cannot be known: another machine, a lease from before host and pid
 * were recorded, or neither `/proc` nor `kill(pid, 0)` allowed.
 *
 * @example
 * ```ts
 * import { holderGone } from "./holder_gone.ts";
 * console.log(holderGone({ owner: "x", expiresAt: 0, host: "elsewhere", pid: 1 }, "here")); // false
 * ```
 */
export function holderGone(lease: Lease, host: string | undefined = localHostname()): boolean {
  if (host === undefined || lease.host !== host || lease.pid === undefined) return false;
  if (lease.pid === Deno.pid) return false; // this process is alive by definition
  if (!Number.isInteger(lease.pid) || lease.pid <= 0) return false;
  return goneByProc(lease.pid) ?? goneByKill(lease.pid) ?? false;
}

/**
 * The live lease of run `id`, or null when there is none or its holder is
 * provably gone (then its lease is released, by a check on its owner, so a
 * successor may take it at once).
 *
 * @example
 * ```ts
 * import { liveLease } from "./holder_gone.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * const dead = new KvRunStore(kv, { owner: "dead", holder: { host: "h", pid: 999_999_999 } });
 * await dead.acquireLease("r1");
 * console.log((await liveLease(new KvRunStore(kv), "r1", () => true)), await dead.leaseHolder("r1")); // null null
 * kv.close();
 * ```
 */
export async function liveLease(
  store: KvRunStore,
  id: string,
  isGone: (lease: Lease) => boolean = (l) => holderGone(l),
): Promise<Lease | null> {
  const lease = await store.leaseHolder(id);
  if (!lease || lease.owner === store.owner || !isGone(lease)) return lease;
  await store.releaseLease(id, lease.owner);
  return await store.leaseHolder(id);
}
