/**
 * The demo's tools: a throwaway workspace of sample files and the tools that
 * read, scan and delete them (`demoTools`). The demo agents use them; they are
 * handy for trying the loop, and are no part of the core.
 *
 * @example
 * ```ts
 * import { createWorkspace, demoTools } from "./mod.ts";
 * const ws = await createWorkspace();
 * console.log(demoTools(ws).map((t) => t.name).includes("read_file")); // true
 * await ws.remove();
 * ```
 *
 * @module
 */
export { createWorkspace, type Workspace, type WorkspaceOptions } from "../tools/workspace.ts";
export { demoTools, type DemoToolsOptions } from "../tools/catalog.ts";
