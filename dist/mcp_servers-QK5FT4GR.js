import {
  mcpServerTools
} from "./chunk-4WVNLAA3.js";
import "./chunk-3AGVN5TS.js";
import "./chunk-LVT2ZGFI.js";
import "./chunk-IYXQD7XI.js";
import "./chunk-OSOEW62Q.js";
export {
  mcpServerTools
};
