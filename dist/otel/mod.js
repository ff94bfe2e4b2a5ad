// @ts-self-types="../../otel/mod.ts"
import {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
} from "../chunk-otel_message_content.js";
import "../chunk-harness_limits.js";
import "../chunk-harness_schema_issue.js";
import "../chunk-harness_message_of.js";
import "../chunk-__template.js";
export {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
};
