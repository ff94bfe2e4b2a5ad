/**
 * The tools a server or worker process offers every run it executes beyond
 * the demo tools: those of the MCP servers named in `reins.jsonc`
 * (`mcpServers`), opened once when the process starts and closed when it
 * stops. The MCP client is loaded only when a server is named, so a process
 * without any (a Deno Deploy instance, say) never loads the MCP SDK.
 *
 * @module
 */
import type { AnyTool } from "../harness/run_options.ts";
import type { McpServerEntry } from "../mcp/mod.ts";

/** Open tools of a process, and how to close what serves them. */
export interface ProcessTools {
  /** Every named server's tools, as `<server>__<tool>`. */
  readonly tools: readonly AnyTool[];
  /** Closes every server (idempotent). */
  close(): Promise<void>;
}

/**
 * Opens the MCP servers of an `mcpServers` map (none: no tools, nothing to
 * close). Throws an `McpStartError` naming the server when one cannot start.
 *
 * @example
 * ```ts
 * import { openProcessTools } from "./process_tools.ts";
 * const none = await openProcessTools(undefined);
 * console.log(none.tools.length); // 0
 * await none.close();
 * ```
 */
export async function openProcessTools(
  servers: Readonly<Record<string, McpServerEntry>> | undefined,
): Promise<ProcessTools> {
  if (!servers || Object.keys(servers).length === 0) {
    return { tools: [], close: () => Promise.resolve() };
  }
  const { mcpServerTools } = await import("../mcp/mcp_servers.ts");
  const mcp = await mcpServerTools(servers);
  let closed: Promise<void> | undefined;
  return { tools: mcp.tools, close: () => closed ??= mcp.close() };
}
