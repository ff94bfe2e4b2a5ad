// @ts-self-types="../../otel/mod.ts"
import {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
} from "../chunk-DB6FLCNQ.js";
import "../chunk-4Q4MPWPK.js";
import "../chunk-O3LUTIO5.js";
import "../chunk-SC5ASBGQ.js";
export {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
};
