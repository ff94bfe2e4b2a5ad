/**
 * What `deno task run` says about the MCP servers of reins.jsonc before the
 * run starts: each server, what it calls itself, and the tools it offers.
 *
 * @module
 */
import type { McpToolSet } from "../mcp/mod.ts";

/**
 * One line per server: `mcp fs (secure-filesystem-server 0.2.0): 14 tools: fs__read_file, …`.
 *
 * @example
 * ```ts
 * import { mcpToolLines } from "./mcp_lines.ts";
 * console.log(mcpToolLines({})); // []
 * ```
 */
export function mcpToolLines(
  servers: Readonly<Record<string, Pick<McpToolSet, "tools" | "server">>>,
): string[] {
  return Object.entries(servers).map(([name, set]) => {
    const who = set.server ? ` (${set.server.name} ${set.server.version})` : "";
    const n = set.tools.length;
    const names = set.tools.map((t) => t.name).join(", ");
    return `mcp ${name}${who}: ${n} tool${n === 1 ? "" : "s"}${n ? `: ${names}` : ""}`;
  });
}
