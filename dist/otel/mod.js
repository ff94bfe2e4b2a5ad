// @ts-self-types="../../otel/mod.ts"
import {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
} from "../chunk-O7MXWKIO.js";
import "../chunk-VR6MMKNT.js";
import "../chunk-O3LUTIO5.js";
import "../chunk-SC5ASBGQ.js";
export {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
};
