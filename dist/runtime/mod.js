// @ts-self-types="../../runtime/mod.ts"
import {
  FORK_NOT_STARTED,
  forkRun
} from "../chunk-BFRNE4U6.js";
import {
  DEFAULT_STOP_REASON,
  UnknownAgentError,
  agentRegistry,
  continueTree,
  createExecutor,
  defaultMakeModel,
  executeRun,
  executeTree,
  followUpRun,
  modelSettings,
  readEnv,
  requestStop,
  startRun,
  startWorker,
  watchStop
} from "../chunk-YXHLOKZK.js";
import "../chunk-DB6FLCNQ.js";
import {
  agentRunOptions
} from "../chunk-TXDRJH6C.js";
import "../chunk-QV5UIVZW.js";
import "../chunk-NX6IC3DL.js";
import {
  forkState,
  quoteNextCall
} from "../chunk-WAYZE2GX.js";
import "../chunk-BTFBEYKY.js";
import "../chunk-WQU7Y35Y.js";
import "../chunk-4Q4MPWPK.js";
import "../chunk-QHK5PKL5.js";
import "../chunk-4GB4C2DK.js";
import "../chunk-GBR67XNQ.js";
import "../chunk-PLNGLDD7.js";
import "../chunk-V35EBTLI.js";
import "../chunk-UPPPGWUO.js";
import "../chunk-KDAN4KL7.js";
import "../chunk-ISIFESS6.js";
import "../chunk-O3LUTIO5.js";
import "../chunk-SC5ASBGQ.js";
export {
  DEFAULT_STOP_REASON,
  FORK_NOT_STARTED,
  UnknownAgentError,
  agentRegistry,
  agentRunOptions,
  continueTree,
  createExecutor,
  defaultMakeModel,
  executeRun,
  executeTree,
  followUpRun,
  forkRun,
  forkState,
  modelSettings,
  quoteNextCall,
  readEnv,
  requestStop,
  startRun,
  startWorker,
  watchStop
};
