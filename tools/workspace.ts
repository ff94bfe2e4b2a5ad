/**
 * A throwaway folder holding copies of the demo files, so the demo tools
 * (and any deletion they make) never touch the repository.
 *
 * @module
 */
import {
  basename,
  dirname,
  isAbsolute,
  join,
  relative,
  resolve as resolvePath,
  sep,
} from "node:path";
import { PermanentToolError } from "../harness/errors.ts";
import { FIXTURES } from "./fixtures.ts";

/** A folder the demo tools work in; every path they take goes through {@link Workspace.resolve}. */
export interface Workspace {
  /** Absolute, symlink-free path of the folder. */
  readonly dir: string;
  /**
   * The absolute path of `path` (relative to {@link Workspace.dir}, or absolute
   * inside it). Throws {@link PermanentToolError} if it lies outside the
   * folder, lexically (`..`, an absolute path) or through a symlink.
   */
  resolve(path: string): string;
  /** Paths of the files in the folder, relative and sorted; hidden entries are skipped. */
  files(): Promise<string[]>;
  /** Deletes the folder and everything in it (no error if already gone). */
  remove(): Promise<void>;
}

/** Where {@link createWorkspace} puts the folder. */
export interface WorkspaceOptions {
  /**
   * Use exactly this folder. When missing it appears whole or not at all: it
   * is built in a hidden sibling and renamed into place, so a process killed
   * mid-way never leaves a folder that looks prepared but lacks files (if
   * another process renames its copy in first, that one is used). When it
   * exists, the demo files in it are overwritten, each atomically.
   */
  dir?: string | undefined;
  /** With `dir`: a folder already there is used as it is (its files are kept, not overwritten). */
  keep?: boolean | undefined;
  /** Create a new `reins-ws-*` folder under this one (created if missing). */
  parent?: string | undefined;
  /** Called after each demo file is written (tests use it to kill a process mid-way). */
  onFileWritten?: ((name: string) => void | Promise<void>) | undefined;
}

/**
 * Creates a workspace: a fresh folder with copies of the demo files
 * (`access.log`, `errors.log`, `notes.txt`). By default a new temp folder.
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * const ws = await createWorkspace();
 * console.log(await ws.files()); // ["access.log", "errors.log", "notes.txt"]
 * await ws.remove();
 * ```
 */
export async function createWorkspace(options: WorkspaceOptions = {}): Promise<Workspace> {
  if (options.dir !== undefined && options.parent !== undefined) {
    throw new TypeError("createWorkspace: pass either dir or parent, not both");
  }
  if (options.dir !== undefined) return openWorkspace(await prepareDir(options.dir, options));
  if (options.parent !== undefined) await Deno.mkdir(options.parent, { recursive: true });
  const prefix = "reins-ws-";
  // Deno's MakeTempOptions.dir takes a path or no key, not undefined.
  const dir = await Deno.makeTempDir(
    options.parent === undefined ? { prefix } : { prefix, dir: options.parent },
  );
  await writeFixtures(dir, options);
  return openWorkspace(dir);
}

async function writeFixtures(dir: string, options: WorkspaceOptions): Promise<void> {
  for (const [name, text] of Object.entries(FIXTURES)) {
    await Deno.writeTextFile(join(dir, name), text);
    await options.onFileWritten?.(name);
  }
}

/** Builds `dir` beside itself and renames it into place; overwrites the files of one that exists. */
async function prepareDir(dir: string, options: WorkspaceOptions): Promise<string> {
  const target = resolvePath(dir);
  if (await isDirectory(target)) {
    if (options.keep) return target;
    for (const [name, text] of Object.entries(FIXTURES)) {
      const tmp = join(target, `.${name}.${crypto.randomUUID()}.tmp`);
      await Deno.writeTextFile(tmp, text);
      await Deno.rename(tmp, join(target, name));
      await options.onFileWritten?.(name);
    }
    return target;
  }
  await Deno.mkdir(dirname(target), { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: dirname(target), prefix: `.${basename(target)}.tmp-` });
  try {
    await writeFixtures(tmp, options);
    try {
      await Deno.rename(tmp, target);
    } catch (e) {
      // Another process renamed its (complete) copy in first: use that one.
      if (!(await isDirectory(target))) throw e;
      await Deno.remove(tmp, { recursive: true });
    }
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
  return target;
}

/**
 * Whether `path` is an existing folder (false when nothing is there).
 *
 * @example
 * ```ts
 * import { isDirectory } from "./workspace.ts";
 * console.log(await isDirectory("/"), await isDirectory("/no/such/dir")); // true false
 * ```
 */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/**
 * Wraps an existing folder as a {@link Workspace} without copying anything.
 *
 * @example
 * ```ts
 * import { createWorkspace, openWorkspace } from "./workspace.ts";
 * const ws = await createWorkspace();
 * const again = openWorkspace(ws.dir);
 * console.log(again.resolve("notes.txt") === ws.resolve("notes.txt")); // true
 * await ws.remove();
 * ```
 */
export function openWorkspace(dir: string): Workspace {
  const root = Deno.realPathSync(dir);
  const inside = (p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
  const refuse = (path: string): never => {
    throw new PermanentToolError(
      `permission denied: ${JSON.stringify(path)} is outside the workspace`,
    );
  };
  // Whether `abs` leads outside: lexically, or by a symlink on the longest
  // prefix that exists, or by a dangling symlink (followed up to 40 hops).
  const escapes = (abs: string, hops: number): boolean => {
    if (!inside(abs) || hops > 40) return true;
    for (let p = abs; p !== root; p = dirname(p)) {
      try {
        return !inside(Deno.realPathSync(p));
      } catch {
        // Missing (or not a directory, or a loop): judge the link, else the parent.
        const target = linkTarget(p);
        if (target !== undefined) return escapes(resolvePath(dirname(p), target), hops + 1);
      }
    }
    return false;
  };
  return {
    dir: root,
    resolve(path: string): string {
      if (typeof path !== "string" || path.includes("\0")) refuse(String(path));
      const abs = isAbsolute(path) ? resolvePath(path) : resolvePath(root, path);
      if (!escapes(abs, 0)) return abs;
      return refuse(path);
    },
    async files(): Promise<string[]> {
      const out: string[] = [];
      const walk = async (folder: string) => {
        for await (const entry of Deno.readDir(folder)) {
          if (entry.name.startsWith(".")) continue;
          const full = join(folder, entry.name);
          if (entry.isDirectory) await walk(full);
          else out.push(relative(root, full).split(sep).join("/"));
        }
      };
      await walk(root);
      return out.sort();
    },
    async remove(): Promise<void> {
      try {
        await Deno.remove(root, { recursive: true });
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    },
  };
}

function linkTarget(path: string): string | undefined {
  try {
    return Deno.lstatSync(path).isSymlink ? Deno.readLinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
