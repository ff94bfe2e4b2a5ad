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
import {
  agentRunOptions
} from "../chunk-harness_trace.js";
import "../chunk-kv_record_error.js";
import "../chunk-subagents_tree.js";
import {
  forkState,
  quoteNextCall
} from "../chunk-harness_exit.js";
import "../chunk-harness_tool.js";
import "../chunk-harness_driven_states.js";
import "../chunk-harness_limits.js";
import "../chunk-openai_provider_name.js";
import "../chunk-harness_text_attempts.js";
import "../chunk-harness_summary_prompt.js";
import "../chunk-harness_schema_adapter.js";
import "../chunk-harness_tokens.js";
import "../chunk-harness_text.js";
import "../chunk-harness_schema_issue.js";
import "../chunk-harness_is_object.js";
import "../chunk-harness_errors.js";
import "../chunk-harness_message_of.js";
import "../chunk-__template.js";
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
