// @ts-self-types="../../otel/mod.ts"
import {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
} from "../chunk-otel_message_content.js";
import "../chunk-harness_limits.js";
import "../chunk-harness_errors.js";
export {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
};
