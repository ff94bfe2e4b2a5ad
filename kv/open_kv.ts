/**
 * Opening the KV database runs are stored in, tolerating a moment of
 * "database is locked" while another process opens or migrates the same file.
 *
 * @module
 */
import { dirname } from "node:path";
import { ReinsError } from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { retryLocked } from "./retry.ts";

/**
 * The KV database cannot be opened (its folder cannot be created, the file is
 * not a database, ...); the message names the path, on one line.
 *
 * @example
 * ```ts
 * import { KvOpenError } from "./open_kv.ts";
 * console.log(new KvOpenError("x.sqlite", "permission denied").message);
 * // Cannot open KV database "x.sqlite": permission denied
 * ```
 */
export class KvOpenError extends ReinsError {
  /** Creates the error. */
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`Cannot open KV database "${path}": ${reason}`, options);
    this.name = "KvOpenError";
  }
}

const isLocalFile = (path: string) => path !== ":memory:" && !isKvUrl(path);

function reasonOf(e: unknown): string {
  const [message = ""] = messageOf(e).split("\n");
  // Deno's own words ("Requires all access to /proc/x, run again with --allow-all")
  // suggest a flag; the path is what is wrong: no database belongs in /proc, /dev or /sys.
  const denied = e instanceof Deno.errors.NotCapable && message.match(/access to "([^"]+)"/);
  if (!denied) return message;
  return `"${denied[1]}" is in a system folder (/proc, /dev, /sys), where no database ` +
    `can be kept: give a path in an ordinary folder`;
}

/** Options of {@link openKv}. */
export interface OpenKvOptions {
  /** Attempts in all (default 10). */
  attempts?: number | undefined;
  /** First wait in ms, doubled each retry up to 1 s (default 25). */
  delayMs?: number | undefined;
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
 * The folder of a file path is created first. Without a path, Deno's default
 * database for the script is used (on Deno Deploy, the app's). A KV Connect
 * URL is passed through unchanged (the access token comes from
 * `DENO_KV_ACCESS_TOKEN`). Throws {@link KvOpenError} (one line, naming the
 * path) when the folder cannot be created or the file opened.
 *
 * @example
 * ```ts
 * import { openKv } from "./open_kv.ts";
 * const kv = await openKv(":memory:");
 * kv.close();
 * ```
 */
export async function openKv(path?: string, options: OpenKvOptions = {}): Promise<Deno.Kv> {
  if (typeof Deno.openKv !== "function") {
    // A user project without "kv" in its deno.json "unstable": say what to add.
    throw new KvOpenError(path ?? "default", 'Deno KV is off: add "kv" to deno.json "unstable"');
  }
  if (path !== undefined && isLocalFile(path)) {
    try {
      await Deno.mkdir(dirname(path), { recursive: true });
    } catch (e) {
      throw new KvOpenError(path, `cannot create its folder: ${reasonOf(e)}`, { cause: e });
    }
  }
  try {
    return await retryLocked(() => Deno.openKv(path), {
      attempts: options.attempts ?? 10,
      delayMs: options.delayMs ?? 25,
    });
  } catch (e) {
    if (path === undefined) throw e;
    throw new KvOpenError(path, reasonOf(e), { cause: e });
  }
}

/**
 * Where runs are stored: `path` (a file, `:memory:` or a KV Connect URL; the
 * caller passes `REINS_KV_PATH` as the one reader of the environment read
 * it), else `.reins/runs.sqlite`; a file's folder is created.
 *
 * @example
 * ```ts
 * import { defaultKvPath, openKv } from "./open_kv.ts";
 * const kv = await openKv(await defaultKvPath(":memory:"));
 * kv.close();
 * ```
 */
export async function defaultKvPath(path?: string): Promise<string> {
  const chosen = path || ".reins/runs.sqlite";
  await ensureKvFolder(chosen);
  return chosen;
}

/** Creates the folder of a KV file (nothing for `:memory:` or a URL). */
async function ensureKvFolder(path: string): Promise<void> {
  if (path === ":memory:" || isKvUrl(path)) return;
  await Deno.mkdir(dirname(path), { recursive: true });
}
