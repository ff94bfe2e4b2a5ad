/**
 * SQLite-backed KV answers "database is locked" when several processes write
 * the same file at once. Nothing was written then, so the operation is retried
 * with a short, jittered backoff.
 *
 * @module
 */
import { sleep } from "../harness/sleep.ts";
import { messageOf } from "../harness/message_of.ts";

/** Options of {@link retryLocked}. */
export interface RetryOptions {
  /** Attempts in all (default 20). */
  attempts?: number | undefined;
  /** First wait in ms, doubled each retry up to 250 ms (default 5). */
  delayMs?: number | undefined;
}

/**
 * True for SQLite's "database is locked" / busy errors.
 *
 * @example
 * ```ts
 * import { isLocked } from "./retry.ts";
 * console.log(isLocked(new TypeError("database is locked"))); // true
 * ```
 */
export function isLocked(e: unknown): boolean {
  return /database is locked|database is busy|SQLITE_BUSY/i.test(messageOf(e));
}

/**
 * Calls `fn`, again after a backoff each time it fails with "database is locked".
 *
 * @example
 * ```ts
 * import { retryLocked } from "./retry.ts";
 * const kv = await Deno.openKv(":memory:");
 * await retryLocked(() => kv.set(["a"], 1));
 * kv.close();
 * ```
 */
export async function retryLocked<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 20;
  const delayMs = options.delayMs ?? 5;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= attempts || !isLocked(e)) throw e;
      const wait = Math.min(250, delayMs * 2 ** (attempt - 1));
      await sleep(wait * (0.5 + Math.random()));
    }
  }
}
