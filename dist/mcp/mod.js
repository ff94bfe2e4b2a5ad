// @ts-self-types="../../mcp/mod.ts"
import {
  mcpServerTools,
  mcpTools
} from "../chunk-mcp_json_schema_args.js";
import "../chunk-harness_settles_within.js";
import {
  McpStartError
} from "../chunk-mcp_mcp_start_error.js";
import "../chunk-harness_limits.js";
import "../chunk-harness_errors.js";
export {
  McpStartError,
  mcpServerTools,
  mcpTools
};
