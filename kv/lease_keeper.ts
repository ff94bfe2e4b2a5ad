/**
 * Keeping leases alive: one timer per KV handle, owner and lease time for
 * every run this process executes under them, renewing all their leases
 * every third of the lease time in batches ({@link renewLeases}), where a
 * timer, a read and a commit per run each did it before.
 *
 * @module
 */
import { type LeaseHolderInfo, renewLeases } from "./leases.ts";

interface Group {
  kv: Deno.Kv;
  owner: string;
  ttlMs: number;
  info: LeaseHolderInfo;
}

const keepers = new WeakMap<Deno.Kv, Map<string, LeaseKeeper>>();

/**
 * Renews `owner`'s lease on run `id` every `ttlMs / 3` until the returned
 * disposer is called (it waits for a renewal under way); calls `onLost` once
 * the lease is found held by someone else. A renewal that fails (the KV
 * errs) is tried again next time.
 *
 * @example
 * ```ts
 * import { keepLease } from "./lease_keeper.ts";
 * import { acquireLease } from "./leases.ts";
 * const kv = await Deno.openKv(":memory:");
 * await acquireLease(kv, "r1", "w1", 60);
 * const stop = keepLease(kv, "r1", "w1", 60, {}, () => console.log("lost"));
 * await new Promise((r) => setTimeout(r, 150)); // past the lease time: still held
 * await stop();
 * kv.close();
 * ```
 */
export function keepLease(
  kv: Deno.Kv,
  id: string,
  owner: string,
  ttlMs: number,
  info: LeaseHolderInfo,
  onLost: () => void,
): () => Promise<void> {
  let groups = keepers.get(kv);
  if (!groups) keepers.set(kv, groups = new Map());
  const name = `${owner}\u0000${ttlMs}`;
  let keeper = groups.get(name);
  if (!keeper) {
    const created: LeaseKeeper = new LeaseKeeper({ kv, owner, ttlMs, info }, () => {
      if (groups.get(name) === created) groups.delete(name);
    });
    groups.set(name, keeper = created);
  }
  return keeper.add(id, onLost);
}

class LeaseKeeper {
  #runs = new Map<string, () => void>();
  #renewing: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setInterval>;
  #closed = false;

  constructor(private group: Group, private onEmpty: () => void) {
    this.#timer = setInterval(() => this.#renew(), Math.max(1, Math.floor(group.ttlMs / 3)));
  }

  add(id: string, onLost: () => void): () => Promise<void> {
    let lost = false;
    const once = () => void (lost || (lost = true, onLost()));
    this.#runs.set(id, once);
    return async () => {
      if (this.#runs.get(id) === once) this.#runs.delete(id);
      if (this.#runs.size || this.#closed) return await this.#renewing;
      this.#closed = true;
      this.onEmpty();
      clearInterval(this.#timer);
      await this.#renewing;
    };
  }

  #renew(): void {
    this.#renewing = this.#renewing.then(async () => {
      const ids = [...this.#runs.keys()];
      if (this.#closed || !ids.length) return;
      const { kv, owner, ttlMs, info } = this.group;
      const held = await renewLeases(kv, ids, owner, ttlMs, info);
      for (const [id, ok] of held) if (!ok) this.#runs.get(id)?.();
    }).catch(() => {}); // the KV erred: tried again next time
  }
}
