/**
 * Chat messages in the OpenAI chat-completions shape. The transcript of a run is
 * an array of these, so it can be sent to any OpenAI-compatible endpoint as is.
 *
 * @module
 */

/** One function call requested by the model. */
export interface ToolCall {
  /** Provider-assigned id; the matching `tool` message carries it as `tool_call_id`. */
  id: string;
  type: "function";
  function: {
    name: string;
    /** JSON text, exactly as the model wrote it (it may be invalid). */
    arguments: string;
  };
}

/** The system prompt. */
export interface SystemMessage {
  role: "system";
  content: string;
}

/** A user turn. */
export interface UserMessage {
  role: "user";
  content: string;
}

/** A model reply: prose, tool calls, or both. */
export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
}

/** The result of one tool call, keyed by the call's id. */
export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  name: string;
  content: string;
}

/** Any message of a transcript. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Token counts of one model call, or summed over a run. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A tool as the model sees it (`tools[]` of a chat-completions request). */
export interface ToolDefinition {
  type: "function";
  function: {
    name: string;
    description: string;
    /** A JSON Schema object. */
    parameters: Record<string, unknown>;
  };
}
