/**
 * `read_file`: the text of one workspace file.
 *
 * @module
 */
import { z } from "zod";
import { PermanentToolError } from "../harness/errors.ts";
import { defineTool, type Tool } from "../harness/tool.ts";
import type { Workspace } from "./workspace.ts";
import { cutText } from "../harness/text.ts";

/** Arguments of `read_file`. */
export interface ReadFileArgs {
  /** Path relative to the workspace. */
  path: string;
}

/** Options of {@link readFileTool}. */
export interface ReadFileOptions {
  /** Most characters returned; the rest is cut with a note. Default 200,000. */
  maxChars?: number | undefined;
}

/** Default cap on the characters `read_file` returns. */
export const READ_FILE_MAX_CHARS = 200_000;

// One schema for every instance: a server builds the tools of each run it executes.
const PARAMETERS = z.object({
  path: z.string().min(1).describe("File path relative to the workspace, e.g. errors.log"),
});

/**
 * The `read_file` tool. Read-only. A missing file is an error the model can
 * fix (`no such file: x. Call list_files to see what exists.`); a path outside
 * the workspace or a file the process may not open is a
 * {@link PermanentToolError}. Long files are cut at `maxChars` with a note.
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * import { standaloneContext } from "../harness/tool.ts";
 * import { readFileTool } from "./read_file.ts";
 * const ws = await createWorkspace();
 * const ctx = standaloneContext({ runId: "r", callId: "c" });
 * console.log(await readFileTool(ws).run({ path: "notes.txt" }, ctx));
 * await ws.remove();
 * ```
 */
export function readFileTool(ws: Workspace, options: ReadFileOptions = {}): Tool<ReadFileArgs> {
  const maxChars = options.maxChars ?? READ_FILE_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`readFileTool: maxChars must be a positive integer, got ${maxChars}`);
  }
  return defineTool<ReadFileArgs>({
    name: "read_file",
    description:
      `Returns the text of a file in the workspace (at most ${maxChars} characters). Call list_files first to see the names.`,
    parameters: PARAMETERS,
    readOnly: true,
    async run({ path }, ctx) {
      ctx.signal.throwIfAborted();
      const abs = ws.resolve(path);
      let file: Deno.FsFile;
      try {
        file = await Deno.open(abs, { read: true });
      } catch (e) {
        throw explain(e, path);
      }
      try {
        const info = await file.stat();
        if (info.isDirectory) throw new Deno.errors.IsADirectory();
        // UTF-8 needs at most 4 bytes a character, so `limit` bytes hold more than maxChars.
        const limit = maxChars * 4 + 4;
        const { bytes, eof } = await readUpTo(file, limit, info.size, ctx.signal);
        const text = new TextDecoder().decode(bytes);
        if (eof && text.length <= maxChars) return text;
        const total = info.size > 0 ? ` (${info.size} bytes in all)` : "";
        return `${
          cutText(text, maxChars)
        }\n\n[truncated: this is only the first ${maxChars} characters of ${path}${total}]`;
      } catch (e) {
        throw explain(e, path);
      } finally {
        file.close();
      }
    },
  });
}

/** The model-facing error for a failed open or read; anything else passes through. */
function explain(e: unknown, path: string): unknown {
  if (e instanceof Deno.errors.NotFound) {
    return new Error(`no such file: ${path}. Call list_files to see what exists.`);
  }
  if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
    return new PermanentToolError(`permission denied: ${path} cannot be opened`, { cause: e });
  }
  if (e instanceof Deno.errors.IsADirectory) {
    return new Error(`${path} is a directory, not a file. Call list_files to see the files.`);
  }
  return e;
}

/** Reads at most `limit` bytes; `eof` says whether the file ended within them. */
async function readUpTo(file: Deno.FsFile, limit: number, sizeHint: number, signal: AbortSignal) {
  let buf = new Uint8Array(Math.min(limit, sizeHint > 0 ? sizeHint + 1 : 64 * 1024));
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      if (n === limit) return { bytes: buf, eof: (await file.read(new Uint8Array(1))) === null };
      const bigger = new Uint8Array(Math.min(limit, buf.length * 2));
      bigger.set(buf);
      buf = bigger;
    }
    const got = await file.read(buf.subarray(n));
    if (got === null) return { bytes: buf.subarray(0, n), eof: true };
    n += got;
    signal.throwIfAborted();
  }
}
