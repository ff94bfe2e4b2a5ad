/**
 * `list_files`: names and sizes of the files in the workspace.
 *
 * @module
 */
import { z } from "zod";
import { PermanentToolError } from "../harness/errors.ts";
import { defineTool, type Tool } from "../harness/tool.ts";
import type { Workspace } from "./workspace.ts";

/** Arguments of `list_files`: none. */
export type ListFilesArgs = Record<string, never>;

// One schema for every instance: a server builds the tools of each run it executes.
const PARAMETERS = z.object({});

/**
 * The `list_files` tool: one line per file, sorted by name, e.g.
 * `access.log (827 bytes)`. Read-only.
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * import { listFilesTool } from "./list_files.ts";
 * const ws = await createWorkspace();
 * const tool = listFilesTool(ws);
 * console.log(tool.name, tool.readOnly); // "list_files" true
 * await ws.remove();
 * ```
 */
export function listFilesTool(ws: Workspace): Tool<ListFilesArgs> {
  return defineTool<ListFilesArgs>({
    name: "list_files",
    description: "Lists the files in the workspace with their sizes in bytes, one per line.",
    parameters: PARAMETERS,
    readOnly: true,
    async run(_args, ctx) {
      ctx.signal.throwIfAborted();
      const names = await ws.files();
      if (names.length === 0) return "The workspace is empty.";
      const lines: string[] = [];
      for (const name of names) {
        try {
          const { size } = await Deno.stat(ws.resolve(name));
          lines.push(`${name} (${size} ${size === 1 ? "byte" : "bytes"})`);
        } catch (e) {
          if (e instanceof PermanentToolError) lines.push(`${name} (links outside the workspace)`);
          else if (!(e instanceof Deno.errors.NotFound)) throw e; // NotFound: deleted meanwhile
        }
      }
      return lines.join("\n");
    },
  });
}
