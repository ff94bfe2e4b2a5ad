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
 * Whether `path` names a remote database (KV Connect: `https://…/connect`)
 * rather than a file.
 *
 * @example
 * ```ts
 * import { isKvUrl } from "./open_kv.ts";
 * console.log(isKvUrl("https://api.deno.com/v2/databases/x/connect"), isKvUrl("a.sqlite")); // true false
 * ```
 */
export function isKvUrl(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/**
 * `Deno.openKv(path)` retried with backoff while the database is locked.
 * Without a path, Deno's default database for the script is used (on Deno
 * Deploy, the app's). A KV Connect URL is passed through unchanged (the
 * access token comes from `DENO_KV_ACCESS_TOKEN`).
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
 * Where runs are stored by default: env `REINS_KV_PATH` (a file, `:memory:`
 * or a KV Connect URL), else `.reins/runs.sqlite`; a file's folder is created.
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
  await ensureKvFolder(path);
  return path;
}

/** Creates the folder of a KV file (nothing for `:memory:` or a URL). */
async function ensureKvFolder(path: string): Promise<void> {
  if (path === ":memory:" || isKvUrl(path)) return;
  await Deno.mkdir(dirname(path), { recursive: true });
}
