// @ts-self-types="../../kv/mod.ts"
import {
  KvOpenError,
  openKv
} from "../chunk-K77IP6BD.js";
import {
  KvRunStore,
  RecordError
} from "../chunk-FV7LNKHT.js";
import "../chunk-CT6FU4E4.js";
import "../chunk-DP3QUJMC.js";
import "../chunk-VHWLCFOY.js";
import "../chunk-HYL4LFLN.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError
} from "../chunk-LVT2ZGFI.js";
import "../chunk-IYXQD7XI.js";
import "../chunk-OSOEW62Q.js";
export {
  KvOpenError,
  KvRunStore,
  RecordError,
  RunConflictError,
  RunNotFoundError,
  RunTooLargeError,
  openKv
};
