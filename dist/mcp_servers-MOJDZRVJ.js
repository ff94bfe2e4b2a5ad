import {
  mcpServerTools
} from "./chunk-GM3YM6AH.js";
import "./chunk-XCV5OE6B.js";
import "./chunk-ISIFESS6.js";
import "./chunk-O3LUTIO5.js";
import "./chunk-SC5ASBGQ.js";
export {
  mcpServerTools
};
