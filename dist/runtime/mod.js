// @ts-self-types="../../runtime/mod.ts"
import {
  FORK_NOT_STARTED,
  forkRun
} from "../chunk-S6FEIMMR.js";
import {
  DEFAULT_STOP_REASON,
  UnknownAgentError,
  agentRegistry,
  agentRunOptions,
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
} from "../chunk-CB4JQGUM.js";
import "../chunk-22DKED7V.js";
import "../chunk-2LGH6LS5.js";
import "../chunk-FV7LNKHT.js";
import "../chunk-26LOZA5X.js";
import {
  forkState,
  quoteNextCall
} from "../chunk-CX4HGGMU.js";
import "../chunk-II5LUMME.js";
import "../chunk-CT6FU4E4.js";
import "../chunk-DP3QUJMC.js";
import "../chunk-7C45D6AL.js";
import "../chunk-BJGHO7P5.js";
import "../chunk-AOQWFOCM.js";
import "../chunk-SJAJQEIF.js";
import "../chunk-DSOFEU5A.js";
import "../chunk-VHWLCFOY.js";
import "../chunk-HYL4LFLN.js";
import "../chunk-LVT2ZGFI.js";
import "../chunk-IYXQD7XI.js";
import "../chunk-OSOEW62Q.js";
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
