// @ts-self-types="../../runtime/mod.ts"
import {
  FORK_NOT_STARTED,
  forkRun
} from "../chunk-runtime_fork_run.js";
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
} from "../chunk-runtime_execute_run.js";
import "../chunk-otel_message_content.js";
import "../chunk-kv_record_error.js";
import "../chunk-subagents_tree.js";
import {
  agentRunOptions,
  forkState,
  quoteNextCall
} from "../chunk-harness_limits.js";
import "../chunk-harness_errors.js";
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
