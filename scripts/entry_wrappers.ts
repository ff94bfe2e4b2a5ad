/**
 * The files `deno bundle` is given in place of the published entries: one per
 * entry, at the entry's own path under a build folder, re-exporting its
 * source; each imports the core entry (`mod.ts`) first, unless it is the core
 * or loads nothing at run time (types only).
 *
 * Why (issue 29): the bundler cuts shared code into one chunk per set of
 * entries that reach it. `./kv`, `./mcp`, `./testing` and the rest each reach
 * another part of the core, so `mod.js` loaded 17 files; a fresh process paid
 * 3-4 ms of its first run and 0.5-0.7 MB for the pieces. When every entry
 * reaches all of the core, it is one chunk and `mod.js` loads 3 files. Each entry is used with
 * the core (a run needs `run()`), so none loads more in use, and the sources'
 * own imports still point only down.
 *
 * @module
 */
import { relative } from "node:path";

/** The core entry's source. */
export const CORE = "mod.ts";

/**
 * The wrapper of `source` (a path relative to the project root), written at
 * `source` under `dir`: its text, given where the project root is from there.
 *
 * @example
 * ```ts
 * import { wrapperText } from "./entry_wrappers.ts";
 * console.log(wrapperText("kv/mod.ts", "../../", new Set()));
 * // import "../../mod.ts";
 * // export * from "../../kv/mod.ts";
 * ```
 */
export function wrapperText(source: string, up: string, alone: ReadonlySet<string>): string {
  const core = source === CORE || alone.has(source) ? "" : `import "${up}${CORE}";\n`;
  return `${core}export * from "${up}${source}";\n`;
}

/**
 * Writes the wrappers of `sources` under `dir` (inside `root`, both absolute
 * and ending in `/`) and returns their paths, in the order of `sources`.
 */
export async function writeEntryWrappers(
  root: string,
  dir: string,
  sources: readonly string[],
  alone: ReadonlySet<string>,
): Promise<string[]> {
  const paths: string[] = [];
  for (const source of sources) {
    const path = `${dir}${source}`;
    const folder = path.slice(0, path.lastIndexOf("/") + 1);
    const up = `${relative(folder, root) || "."}/`;
    await Deno.mkdir(folder, { recursive: true });
    await Deno.writeTextFile(path, wrapperText(source, up, alone));
    paths.push(path);
  }
  return paths;
}
