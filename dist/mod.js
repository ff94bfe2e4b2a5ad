// @ts-self-types="../mod.ts"
import {
  DEFAULT_LIMITS,
  MemoryRunStore,
  SUMMARY_PROMPT,
  approve,
  createOpenAIModel,
  defineAgent,
  defineTool,
  fileSink,
  followUp,
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  jsonlSink,
  memorySink,
  newRun,
  reject,
  run,
  runAgent
} from "./chunk-harness_limits.js";
import {
  ModelError,
  PermanentToolError,
  ReinsError,
  RunStateError
} from "./chunk-harness_errors.js";
export {
  DEFAULT_LIMITS,
  MemoryRunStore,
  ModelError,
  PermanentToolError,
  ReinsError,
  RunStateError,
  SUMMARY_PROMPT,
  approve,
  createOpenAIModel,
  defineAgent,
  defineTool,
  fileSink,
  followUp,
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  jsonlSink,
  memorySink,
  newRun,
  reject,
  run,
  runAgent
};
