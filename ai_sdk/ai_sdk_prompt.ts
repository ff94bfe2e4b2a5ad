/**
 * reins's transcript (chat-completions messages) and tool definitions as an AI
 * SDK language-model prompt (specification v3 and v4 share this shape).
 *
 * @module
 */
import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
} from "@ai-sdk/provider";
import type { ChatMessage, ToolDefinition } from "./reins.ts";

/** The arguments a model wrote, parsed (they are sent to providers as JSON); raw text if invalid. */
function input(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/**
 * The prompt for a transcript. Consecutive `tool` messages become one `tool`
 * message with a result part each, as the AI SDK expects.
 *
 * @example
 * ```ts
 * import { toPrompt } from "./ai_sdk_prompt.ts";
 * console.log(toPrompt([{ role: "user", content: "hi" }]));
 * // [{ role: "user", content: [{ type: "text", text: "hi" }] }]
 * ```
 */
export function toPrompt(messages: readonly ChatMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Message[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        prompt.push({ role: "system", content: m.content });
        break;
      case "user":
        prompt.push({ role: "user", content: [{ type: "text", text: m.content }] });
        break;
      case "assistant": {
        const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
        if (m.content) content.push({ type: "text", text: m.content });
        for (const c of m.tool_calls ?? []) {
          content.push({
            type: "tool-call",
            toolCallId: c.id,
            toolName: c.function.name,
            input: input(c.function.arguments),
          });
        }
        prompt.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const part: LanguageModelV4ToolResultPart = {
          type: "tool-result",
          toolCallId: m.tool_call_id,
          toolName: m.name,
          output: { type: "text", value: m.content },
        };
        const last = prompt.at(-1);
        if (last?.role === "tool") last.content.push(part);
        else prompt.push({ role: "tool", content: [part] });
        break;
      }
      default:
        throw new TypeError(`toPrompt: unknown role ${JSON.stringify((m as ChatMessage).role)}`);
    }
  }
  return prompt;
}

/**
 * The function tools of a request, their JSON schemas passed as they are.
 *
 * @example
 * ```ts
 * import { toTools } from "./ai_sdk_prompt.ts";
 * console.log(toTools([])); // []
 * ```
 */
export function toTools(tools: readonly ToolDefinition[]): LanguageModelV4FunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters as LanguageModelV4FunctionTool["inputSchema"],
  }));
}
