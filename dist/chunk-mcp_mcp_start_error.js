import {
  ReinsError
} from "./chunk-harness_errors.js";

// mcp/mcp_start_error.ts
var McpStartError = class extends ReinsError {
  /** How the server is named: `"fs"` (its `mcpServers` name), its command line, or its URL. */
  server;
  /**
   * Creates the error; `server` is the label errors name the server by, and
   * `message` is prefixed with it unless it names it already.
   */
  constructor(server, message, options) {
    super(message.includes(server) ? message : `MCP server ${server}: ${message}`, options);
    this.server = server;
  }
};

export {
  McpStartError
};
