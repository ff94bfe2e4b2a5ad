import {
  mcpServerTools
} from "./chunk-mcp_json_schema_args.js";
import "./chunk-harness_settles_within.js";
import "./chunk-mcp_mcp_start_error.js";
import "./chunk-harness_errors.js";
export {
  mcpServerTools
};
