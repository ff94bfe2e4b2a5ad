/**
 * Checks `deno task run` makes before a run exists: a wrong `--trace` path or
 * base URL is a one-line usage error (exit 2), never a run stored `failed`.
 *
 * @module
 */
import { UsageError } from "./args.ts";

/**
 * Refuses `path` unless a trace can be appended to it: the file is opened
 * (created when missing) for appending, as the trace sink will.
 *
 * @example
 * ```ts
 * import { checkTracePath } from "./preflight.ts";
 * try {
 *   await checkTracePath("/no/such/folder/trace.jsonl");
 * } catch (e) {
 *   console.log((e as Error).message); // --trace "/no/such/folder/trace.jsonl": no such folder
 * }
 * ```
 */
export async function checkTracePath(path: string): Promise<void> {
  try {
    const file = await Deno.open(path, { append: true, create: true });
    file.close();
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such folder"
      : e instanceof Deno.errors.IsADirectory
      ? "is a folder"
      : (e as Error).message.split("\n")[0];
    throw new UsageError(`--trace "${path}": ${why}`);
  }
}

/**
 * Refuses a base URL that is not an absolute http(s) URL; `source` names
 * where it came from (`--base-url`, `LLM_BASE_URL`, `reins.jsonc baseUrl`).
 *
 * @example
 * ```ts
 * import { checkBaseUrl } from "./preflight.ts";
 * checkBaseUrl("http://127.0.0.1:8788/v1", "--base-url"); // fine
 * try {
 *   checkBaseUrl("localhost:8788", "--base-url");
 * } catch (e) {
 *   console.log((e as Error).message);
 *   // --base-url "localhost:8788": expected an http:// or https:// URL, e.g. http://127.0.0.1:8788/v1
 * }
 * ```
 */
export function checkBaseUrl(value: string, source: string): void {
  let ok = false;
  try {
    ok = ["http:", "https:"].includes(new URL(value).protocol);
  } catch { /* not a URL at all */ }
  if (!ok) {
    throw new UsageError(
      `${source} "${value}": expected an http:// or https:// URL, e.g. http://127.0.0.1:8788/v1`,
    );
  }
}
