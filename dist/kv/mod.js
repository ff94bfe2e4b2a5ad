// @ts-self-types="../../kv/mod.ts"
import {
  KvOpenError,
  openKv
} from "../chunk-kv_open_kv.js";
import {
  KvRunStore,
  RecordError
} from "../chunk-kv_record_error.js";
import "../chunk-harness_limits.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError
} from "../chunk-harness_errors.js";
export {
  KvOpenError,
  KvRunStore,
  RecordError,
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError,
  openKv
};
