import {
  mcpServerTools
} from "./chunk-mcp_json_schema_args.js";
import "./chunk-mcp_mcp_start_error.js";
import "./chunk-harness_is_object.js";
import "./chunk-harness_errors.js";
import "./chunk-harness_message_of.js";
import "./chunk-__template.js";
export {
  mcpServerTools
};
