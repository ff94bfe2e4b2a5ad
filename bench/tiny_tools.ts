/**
 * The two tiny tools of issue 29's fresh-process setup, as plain specs that
 * import zod and nothing of reins: the bare loop (bench/tiny_loop.ts) calls
 * them directly, reins wraps them with its public `defineTool`. Each answers
 * from memory at once, so the figures are the loop's and the client's alone.
 *
 * @module
 */
import { z } from "zod";

/** One tiny tool: what `defineTool` takes, with its arguments typed loosely. */
export interface TinyTool {
  name: string;
  description: string;
  parameters: z.ZodObject;
  readOnly: true;
  run(args: { path?: string }): string;
}

/** list_files and read_file, the two tools the `plan` and `runaway` scenarios call. */
export const TINY_TOOLS: readonly TinyTool[] = [
  {
    name: "list_files",
    description: "List the files of the workspace.",
    parameters: z.object({}),
    readOnly: true,
    run: () => "errors.log\nnotes.md",
  },
  {
    name: "read_file",
    description: "Read a file of the workspace.",
    parameters: z.object({ path: z.string() }),
    readOnly: true,
    run: ({ path }) =>
      path === "errors.log" ? "2024-01-01 ERROR worker 7 timed out after 30000 ms" : "",
  },
];
