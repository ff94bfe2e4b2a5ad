// @ts-self-types="../../kv/mod.ts"
import {
  KvOpenError,
  openKv
} from "../chunk-kv_open_kv.js";
import {
  KvRunStore,
  RecordError
} from "../chunk-kv_record_error.js";
import "../chunk-harness_driven_states.js";
import "../chunk-harness_limits.js";
import "../chunk-harness_text.js";
import "../chunk-harness_schema_issue.js";
import "../chunk-harness_is_object.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError
} from "../chunk-harness_errors.js";
import "../chunk-harness_message_of.js";
import "../chunk-__template.js";
export {
  KvOpenError,
  KvRunStore,
  RecordError,
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError,
  openKv
};
