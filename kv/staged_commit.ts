/**
 * The commits of one save: the staging atomics of a large turn, and the
 * commit that names the run when KV refuses a value as too large.
 *
 * @module
 */
import { retryLocked } from "./retry.ts";
import { stagingKey } from "./keys.ts";
import { encodeValue } from "./value_codec.ts";
import type { Write } from "./chunks.ts";

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
