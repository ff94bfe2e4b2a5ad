// @ts-self-types="../../mcp/mod.ts"
import {
  mcpServerTools,
  mcpTools
} from "../chunk-4WVNLAA3.js";
import {
  McpStartError
} from "../chunk-3AGVN5TS.js";
import "../chunk-LVT2ZGFI.js";
import "../chunk-IYXQD7XI.js";
import "../chunk-OSOEW62Q.js";
export {
  McpStartError,
  mcpServerTools,
  mcpTools
};
