/**
 * The one place this folder imports reins's own contracts from, so moving
 * them touches one file.
 *
 * @module
 */
export type { Model, ModelReply, ModelRequest } from "../harness/model.ts";
export type {
  AssistantMessage,
  CallUsage,
  ChatMessage,
  ToolCall,
  ToolDefinition,
} from "../harness/messages.ts";
export type { Prices } from "../harness/cost.ts";
export { ModelError } from "../harness/errors.ts";
export { saysContextLength } from "../harness/context_errors.ts";
export {
  countCompletionTokens,
  countPromptTokens,
  loadTokenizer,
  tokenCount,
} from "../harness/tokens.ts";
export { sleep } from "../harness/sleep.ts";
export { attemptText } from "../harness/text_attempts.ts";
