/**
 * The tools a process offers every root run it executes beyond its agents'
 * own: those of the MCP servers named in `reins.jsonc` (`mcpServers`),
 * opened once when the process starts and closed when it stops. The MCP
 * client is loaded only when a server is named, so a process without any (a
 * Deno Deploy instance, say) never loads the MCP SDK.
 *
 * @module
 */
import type { AnyTool } from "../harness/run_options.ts";
import type { McpServerEntry, McpToolSet } from "../mcp/mod.ts";

/** Open tools of a process, and how to close what serves them. */
export interface ProcessTools {
  /** Every named server's tools, as `<server>__<tool>`. */
  readonly tools: readonly AnyTool[];
  /** The open servers by name (what each offers, for a start-up line). */
  readonly servers: Readonly<Record<string, McpToolSet>>;
  /** Closes every server (idempotent). */
  close(): Promise<void>;
}

/** Options of {@link openProcessTools}. */
export interface ProcessToolsOptions {
  /** What becomes of a stdio server's stderr (default: inherited). */
  stderr?: "inherit" | "ignore" | "pipe";
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
  options: ProcessToolsOptions = {},
): Promise<ProcessTools> {
  if (!servers || Object.keys(servers).length === 0) {
    return { tools: [], servers: {}, close: () => Promise.resolve() };
  }
  const { mcpServerTools } = await import("../mcp/mcp_servers.ts");
  const mcp = await mcpServerTools(servers, options);
  let closed: Promise<void> | undefined;
  return { tools: mcp.tools, servers: mcp.servers, close: () => closed ??= mcp.close() };
}
