// @ts-self-types="../../kv/mod.ts"
import {
  KvOpenError,
  openKv
} from "../chunk-QI72XL4F.js";
import {
  KvRunStore,
  RecordError
} from "../chunk-QV5UIVZW.js";
import "../chunk-WQU7Y35Y.js";
import "../chunk-4Q4MPWPK.js";
import "../chunk-UPPPGWUO.js";
import "../chunk-KDAN4KL7.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError
} from "../chunk-ISIFESS6.js";
import "../chunk-O3LUTIO5.js";
import "../chunk-SC5ASBGQ.js";
export {
  KvOpenError,
  KvRunStore,
  RecordError,
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError,
  openKv
};
