/**
 * The demo tool catalog: four tools over one {@link Workspace}.
 *
 * @module
 */
import type { AnyTool } from "../harness/run_options.ts";
import { deleteFileTool } from "./delete_file.ts";
import { listFilesTool } from "./list_files.ts";
import { type ReadFileOptions, readFileTool } from "./read_file.ts";
import { type ScanArchiveOptions, scanArchiveTool } from "./scan_archive.ts";
import type { Workspace } from "./workspace.ts";

/** Options of {@link demoTools}. */
export interface DemoToolsOptions {
  /** Options of `read_file`. */
  read?: ReadFileOptions | undefined;
  /** Options of `scan_archive` (e.g. `{ ms: 50 }` in tests). */
  scan?: ScanArchiveOptions | undefined;
}

/**
 * The demo tools, in order: `list_files`, `read_file`, `delete_file`
 * (needs approval) and `scan_archive` (slow, reports progress).
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * import { demoTools } from "./catalog.ts";
 * import { toolDefinitions } from "../harness/tool.ts";
 * const ws = await createWorkspace();
 * const tools = demoTools(ws);
 * console.log(toolDefinitions(tools).map((d) => d.function.name));
 * await ws.remove();
 * ```
 */
export function demoTools(ws: Workspace, options: DemoToolsOptions = {}): AnyTool[] {
  return [
    listFilesTool(ws),
    readFileTool(ws, options.read),
    deleteFileTool(ws),
    scanArchiveTool(ws, options.scan),
  ];
}
