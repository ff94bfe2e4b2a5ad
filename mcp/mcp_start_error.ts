/**
 * The error an MCP server that cannot be started or reached gives, naming the
 * server: what `deno task serve`, `deno task worker` and `deno task run` print
 * as one line when a server of `reins.jsonc` does not start.
 *
 * @module
 */
import { ReinsError } from "./reins.ts";

/**
 * An MCP server could not be started, reached, or asked for its tools.
 *
 * @example
 * ```ts
 * import { McpStartError } from "./mcp_start_error.ts";
 * const e = new McpStartError('"fs"', "spawn /no/such/binary ENOENT");
 * console.log(e.message); // MCP server "fs": spawn /no/such/binary ENOENT
 * ```
 */
export class McpStartError extends ReinsError {
  /** How the server is named: `"fs"` (its `mcpServers` name), its command line, or its URL. */
  readonly server: string;
  /**
   * Creates the error; `server` is the label errors name the server by, and
   * `message` is prefixed with it unless it names it already.
   */
  constructor(server: string, message: string, options?: ErrorOptions) {
    super(message.includes(server) ? message : `MCP server ${server}: ${message}`, options);
    this.server = server;
  }
}
