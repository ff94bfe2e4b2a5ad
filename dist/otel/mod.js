// @ts-self-types="../../otel/mod.ts"
import {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
} from "../chunk-22DKED7V.js";
import "../chunk-DP3QUJMC.js";
import "../chunk-IYXQD7XI.js";
import "../chunk-OSOEW62Q.js";
export {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
};
