/**
 * `delete_file`: removes one workspace file, after a person approves.
 *
 * Every actual deletion appends `idempotencyKey<TAB>path` to the hidden
 * `.effects.log` in the workspace, so tests can count side effects (also a
 * file deleted twice).
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { PermanentToolError } from "../harness/errors.ts";
import { defineTool, type Tool } from "../harness/tool.ts";
import type { Workspace } from "./workspace.ts";

/** Arguments of `delete_file`. */
export interface DeleteFileArgs {
  /** Path relative to the workspace. */
  path: string;
}

/** One recorded deletion. */
export interface Effect {
  /** The idempotency key of the call that deleted. */
  key: string;
  /** The path as the model gave it. */
  path: string;
}

/** Name of the hidden effects log inside the workspace. */
export const EFFECTS_LOG = ".effects.log";

// One schema for every instance: a server builds the tools of each run it executes.
const PARAMETERS = z.object({
  path: z.string().min(1).describe("File path relative to the workspace, e.g. notes.txt"),
});

/**
 * The `delete_file` tool: needs approval, not read-only, not idempotent.
 * Returns `deleted <path>`; a missing file is an error for the model
 * (`no such file: x. Nothing was deleted.`).
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * import { standaloneContext } from "../harness/tool.ts";
 * import { deleteFileTool, readEffects } from "./delete_file.ts";
 * const ws = await createWorkspace();
 * const ctx = standaloneContext({ runId: "r", callId: "c" });
 * console.log(await deleteFileTool(ws).run({ path: "notes.txt" }, ctx)); // "deleted notes.txt"
 * console.log(await readEffects(ws)); // [{ key: "r:c", path: "notes.txt" }]
 * await ws.remove();
 * ```
 */
export function deleteFileTool(ws: Workspace): Tool<DeleteFileArgs> {
  return defineTool<DeleteFileArgs>({
    name: "delete_file",
    description: "Deletes a file in the workspace. A person must approve each deletion.",
    parameters: PARAMETERS,
    readOnly: false,
    idempotent: false,
    needsApproval: true,
    async run({ path }, ctx) {
      ctx.signal.throwIfAborted();
      const abs = ws.resolve(path);
      if (abs === ws.resolve(EFFECTS_LOG)) {
        throw new Error(`${path} belongs to the harness. Nothing was deleted.`);
      }
      try {
        const info = await Deno.lstat(abs);
        if (info.isDirectory) {
          throw new Error(
            `${path} is a directory; delete_file removes files only. Nothing was deleted.`,
          );
        }
        await Deno.remove(abs);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) {
          throw new Error(`no such file: ${path}. Nothing was deleted.`);
        }
        if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
          throw new PermanentToolError(`permission denied: ${path} cannot be deleted`, {
            cause: e,
          });
        }
        throw e;
      }
      const line = `${oneLine(ctx.idempotencyKey)}\t${oneLine(path)}\n`;
      await Deno.writeTextFile(join(ws.dir, EFFECTS_LOG), line, { append: true });
      return `deleted ${path}`;
    },
  });
}

/**
 * The deletions recorded in a workspace, oldest first.
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * import { standaloneContext } from "../harness/tool.ts";
 * import { readEffects } from "./delete_file.ts";
 * const ws = await createWorkspace();
 * console.log(await readEffects(ws)); // []
 * await ws.remove();
 * ```
 */
export async function readEffects(ws: Workspace): Promise<Effect[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(ws.dir, EFFECTS_LOG));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return text.split("\n").filter((l) => l !== "").map((l) => {
    const tab = l.indexOf("\t");
    return { key: l.slice(0, tab), path: l.slice(tab + 1) };
  });
}

function oneLine(s: string): string {
  return s.replace(/[\t\n\r]/g, " ");
}
