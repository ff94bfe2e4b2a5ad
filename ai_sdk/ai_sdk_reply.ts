/**
 * An AI SDK `doGenerate` result as a reins `ModelReply`: text and tool calls,
 * usage (with prompt-cache reads and writes), the finish reason.
 *
 * @module
 */
import {
  type AssistantMessage,
  type CallUsage,
  countCompletionTokens,
  countPromptTokens,
  loadTokenizer,
  ModelError,
  type ModelReply,
  type ModelRequest,
  tokenCount,
  type ToolCall,
} from "./reins.ts";
import { isObject } from "../harness/is_object.ts";

/** The parts of a v3/v4 generate result reins reads. */
export interface GenerateResult {
  /** Ordered content: `text`, `tool-call`, and others reins skips (reasoning, sources, …). */
  content: readonly unknown[];
  /** `{ unified, raw }` (v3/v4), or a plain string (v2). */
  finishReason: unknown;
  /** Token counts; v3/v4 nest them (`inputTokens.total`, `.cacheRead`, …). */
  usage?: unknown;
  /** Response metadata, for the model name. */
  response?: { modelId?: string };
}

const FINISH: Record<string, string> = {
  "stop": "stop",
  "length": "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter",
};

/** `tool-calls` → `tool_calls`, as reins (and chat completions) spell finish reasons. */
export function finishReason(reason: unknown, hasCalls: boolean): string {
  const unified = isObject(reason) ? reason["unified"] : reason;
  if (typeof unified !== "string") return hasCalls ? "tool_calls" : "stop";
  return FINISH[unified] ?? unified.replaceAll("-", "_");
}

/**
 * v3/v4 usage (`{ inputTokens: { total, cacheRead, … }, outputTokens: { total } }`), or v2's
 * flat one. A count the provider did not report is counted locally, as reins's own client
 * does (the o200k encoder is loaded first: nothing else may have loaded it).
 */
export async function usageOf(
  usage: unknown,
  request: ModelRequest,
  message: AssistantMessage,
): Promise<CallUsage> {
  const u = isObject(usage) ? usage : {};
  const input = isObject(u["inputTokens"]) ? u["inputTokens"] : { total: u["inputTokens"] };
  const output = isObject(u["outputTokens"]) ? u["outputTokens"] : { total: u["outputTokens"] };
  const read = tokenCount(input["cacheRead"]) ?? tokenCount(u["cachedInputTokens"]);
  const write = tokenCount(input["cacheWrite"]);
  const parts = [tokenCount(input["noCache"]), read, write];
  const summed = parts.every((n) => n !== undefined)
    ? parts.reduce((a, b) => a! + b!, 0)
    : undefined;
  const prompt = tokenCount(input["total"]) ?? summed;
  const completion = tokenCount(output["total"]);
  if (prompt === undefined || completion === undefined) await loadTokenizer();
  const result: CallUsage = {
    prompt_tokens: prompt ?? countPromptTokens(request.messages, request.tools),
    completion_tokens: completion ?? countCompletionTokens(message),
  };
  if (read) result.cached_prompt_tokens = read;
  if (write) result.cache_write_tokens = write;
  return result;
}

/**
 * The reply for a generate result. A content part reins cannot read
 * (a tool call without a name) is a `ModelError("malformed")`.
 *
 * @example
 * ```ts
 * import { toReply } from "./ai_sdk_reply.ts";
 * const reply = await toReply({
 *   content: [{ type: "text", text: "hi" }],
 *   finishReason: { unified: "stop", raw: "end_turn" },
 *   usage: { inputTokens: { total: 5 }, outputTokens: { total: 1 } },
 * }, { messages: [], tools: [] }, "m");
 * console.log(reply.message.content, reply.usage); // "hi" { prompt_tokens: 5, completion_tokens: 1 }
 * ```
 */
export async function toReply(
  result: GenerateResult,
  request: ModelRequest,
  name: string,
): Promise<ModelReply> {
  const bad = (what: string) =>
    new ModelError("malformed", `Malformed reply from ${name}: ${what}`);
  if (!isObject(result) || !Array.isArray(result.content)) throw bad("no content array");
  let text = "";
  const calls: ToolCall[] = [];
  result.content.forEach((part, i) => {
    if (!isObject(part)) throw bad(`content[${i}] is not an object`);
    if (part["type"] === "text" && typeof part["text"] === "string") text += part["text"];
    if (part["type"] === "tool-call" && part["providerExecuted"] !== true) {
      if (typeof part["toolName"] !== "string" || !part["toolName"]) {
        throw bad(`content[${i}].toolName is missing`);
      }
      const args = typeof part["input"] === "string"
        ? part["input"]
        : JSON.stringify(part["input"] ?? {});
      calls.push({
        id: typeof part["toolCallId"] === "string" ? part["toolCallId"] : "",
        type: "function",
        function: { name: part["toolName"], arguments: args },
      });
    }
  });
  const message: AssistantMessage = calls.length
    ? { role: "assistant", content: text || null, tool_calls: calls }
    : { role: "assistant", content: text };
  const reply: ModelReply = {
    message,
    usage: await usageOf(result.usage, request, message),
    finishReason: finishReason(result.finishReason, calls.length > 0),
  };
  if (typeof result.response?.modelId === "string") reply.model = result.response.modelId;
  return reply;
}
