/**
 * The model contract in detail, for who writes a `Model` of their own: the
 * request and reply, a lost reply, the structured-output format, the message
 * shapes (OpenAI chat-completions), usage and prices. `Model`, `ChatMessage`,
 * `ToolCall` and `Usage` are in the main entry.
 *
 * @example
 * ```ts
 * import type { ModelReply, ModelRequest } from "./mod.ts";
 * const reply = (req: ModelRequest): ModelReply => ({
 *   message: { role: "assistant", content: `${req.messages.length} messages` },
 *   usage: { prompt_tokens: 1, completion_tokens: 1 },
 *   finishReason: "stop",
 * });
 * console.log(reply({ messages: [], tools: [] }).message.content); // 0 messages
 * ```
 *
 * @module
 */
export type { LostReply, ModelReply, ModelRequest } from "../harness/model.ts";
export type { OutputFormat } from "../harness/output.ts";
export type {
  AssistantMessage,
  CallUsage,
  SystemMessage,
  ToolDefinition,
  ToolMessage,
  UserMessage,
} from "../harness/messages.ts";
export type { Prices, PriceTable } from "../harness/cost.ts";
