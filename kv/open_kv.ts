/**
 * Opening the KV database runs are stored in, tolerating a moment of
 * "database is locked" while another process opens or migrates the same file.
 *
 * @module
 */
import { dirname } from "node:path";
import { retryLocked } from "./retry.ts";

/** Options of {@link openKv}. */
export interface OpenKvOptions {
  /** Attempts in all (default 10). */
  attempts?: number;
  /** First wait in ms, doubled each retry up to 1 s (default 25). */
  delayMs?: number;
}

/**
 * `Deno.openKv(path)` retried with backoff while the database is locked.
 * Without a path, Deno's default database for the script is used.
 *
 * @example
 * ```ts
 * import { openKv } from "./open_kv.ts";
 * const kv = await openKv(":memory:");
 * kv.close();
 * ```
 */
export function openKv(path?: string, options: OpenKvOptions = {}): Promise<Deno.Kv> {
  return retryLocked(() => Deno.openKv(path), {
    attempts: options.attempts ?? 10,
    delayMs: options.delayMs ?? 25,
  });
}

/**
 * Where runs are stored by default: env `REINS_KV_PATH`, else
 * `.reins/runs.sqlite`; the folder is created.
 *
 * @example
 * ```ts
 * import { defaultKvPath, openKv } from "./open_kv.ts";
 * Deno.env.set("REINS_KV_PATH", ":memory:");
 * const kv = await openKv(await defaultKvPath());
 * kv.close();
 * ```
 */
export async function defaultKvPath(): Promise<string> {
  const path = Deno.env.get("REINS_KV_PATH") || ".reins/runs.sqlite";
  if (path !== ":memory:") await Deno.mkdir(dirname(path), { recursive: true });
  return path;
}
