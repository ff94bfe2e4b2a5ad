/**
 * Tools from any Model Context Protocol server, over stdio or Streamable HTTP,
 * with the server's annotations mapped to reins's dedupe, approval and resume.
 *
 * @example
 * ```ts
 * import { mcpTools } from "./mod.ts";
 * await using fs = await mcpTools({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
 * });
 * console.log(fs.tools.map((t) => t.name));
 * ```
 *
 * @module
 */
export {
  type McpToolOptions,
  mcpTools,
  type McpToolSet,
  type McpToolsOptions,
} from "./mcp_tools.ts";
export { type McpServerEntry, type McpServerTools, mcpServerTools } from "./mcp_servers.ts";
export type { McpHttpServer, McpServerSpec, McpStdioServer } from "./mcp_connection.ts";
export type { McpArgs } from "./json_schema_args.ts";
export { McpStartError } from "./mcp_start_error.ts";
