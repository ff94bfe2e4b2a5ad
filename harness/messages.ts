/**
 * Chat messages in the OpenAI chat-completions shape. The transcript of a run is
 * an array of these, so it can be sent to any OpenAI-compatible endpoint as is.
 *
 * @module
 */

/** One function call requested by the model. */
export interface ToolCall {
  /**
   * The call's id, unique within the run (reins renames a provider id already used
   * in the run, and names a call that has none); the matching `tool` message
   * carries it as `tool_call_id`. Verdicts, intents, dedupe, idempotency keys and
   * child run ids are keyed by it.
   */
  id: string;
  /**
   * The provider's own id, when reins renamed the call: what is sent back on the
   * wire (for the call and its result) instead of `id`.
   */
  wireId?: string;
  /** Always `function`. */
  type: "function";
  /** The function to call. */
  function: {
    /** The tool's name. */
    name: string;
    /** JSON text, exactly as the model wrote it (it may be invalid). */
    arguments: string;
  };
}

/** The system prompt. */
export interface SystemMessage {
  /** Always `system`. */
  role: "system";
  /** The instructions. */
  content: string;
}

/** A user turn. */
export interface UserMessage {
  /** Always `user`. */
  role: "user";
  /** The user's text. */
  content: string;
}

/** A model reply: prose, tool calls, or both. */
export interface AssistantMessage {
  /** Always `assistant`. */
  role: "assistant";
  /** Prose, or null when the reply is only tool calls. */
  content: string | null;
  /** Calls the model asks for. */
  tool_calls?: ToolCall[];
}

/** The result of one tool call, keyed by the call's id. */
export interface ToolMessage {
  /** Always `tool`. */
  role: "tool";
  /** The id of the call this answers. */
  tool_call_id: string;
  /** The tool's name. */
  name: string;
  /** The result, or the error written for the model. */
  content: string;
}

/** Any message of a transcript. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Token counts of one model call, or summed over a run. */
export interface Usage {
  /** Tokens sent (messages and tool definitions). */
  prompt_tokens: number;
  /** Tokens generated. */
  completion_tokens: number;
}

/** Token counts of one model call, with the prompt-cache counts the provider reports. */
export interface CallUsage extends Usage {
  /** Of `prompt_tokens`, how many were read from the provider's prompt cache. */
  cached_prompt_tokens?: number | undefined;
  /** Of `prompt_tokens`, how many were written to the provider's prompt cache. */
  cache_write_tokens?: number | undefined;
}

/** A tool as the model sees it (`tools[]` of a chat-completions request). */
export interface ToolDefinition {
  /** Always `function`. */
  type: "function";
  /** Name, description and parameter schema. */
  function: {
    /** The tool's name. */
    name: string;
    /** What the tool does, for the model. */
    description: string;
    /** A JSON Schema object. */
    parameters: Record<string, unknown>;
  };
}
