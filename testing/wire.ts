/**
 * OpenAI chat-completions wire shapes for the scripted provider: request
 * validation (zod), completion and SSE chunk bodies, and error bodies.
 *
 * @module
 */
import { z } from "zod";
import type {
  AssistantMessage,
  ChatMessage,
  ToolCall,
  ToolDefinition,
  Usage,
} from "../harness/messages.ts";

const textPart = z.object({ type: z.string(), text: z.string().optional() });
const content = z.union([z.string(), z.array(textPart)]).nullable().optional();
const wireToolCall = z.object({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
const wireMessage = z.object({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content,
  name: z.string().optional(),
  tool_calls: z.array(wireToolCall).nullable().optional(),
  tool_call_id: z.string().optional(),
}).refine((m) => m.role !== "tool" || m.tool_call_id !== undefined, {
  message: "a tool message needs tool_call_id",
});
const wireTool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
const tokenCap = z.number().int().min(1).nullable().optional();
// OpenAI's `response_format`: a JSON Schema's name is 1-64 letters, digits, `_` or `-`.
const responseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

/** The validated body of `POST /v1/chat/completions` (unknown fields are ignored). */
const chatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(wireMessage).min(1),
  tools: z.array(wireTool).nullable().optional(),
  max_tokens: tokenCap,
  max_completion_tokens: tokenCap,
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  response_format: responseFormat.nullable().optional(),
});

/** A chat-completions request after validation and normalisation. */
export interface ChatRequest {
  /** The model name (the scenario). */
  model: string;
  /** The transcript, normalised to reins' message shapes. */
  messages: ChatMessage[];
  /** The tool definitions (empty if none). */
  tools: ToolDefinition[];
  /** The smaller of `max_tokens` and `max_completion_tokens`, if either is set. */
  maxTokens?: number | undefined;
  /** `stream: true` was asked for. */
  stream: boolean;
  /** `stream_options.include_usage` was asked for. */
  includeUsage: boolean;
  /** The `response_format` asked for, if any (validated; scenarios answer as scripted). */
  responseFormat?: z.infer<typeof responseFormat> | undefined;
}

function text(value: z.infer<typeof content>): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  return value.map((p) => p.text ?? "").join("");
}

/**
 * Validates and normalises a request body; returns the request or a one-line
 * reason it is invalid (text content parts are joined into one string).
 *
 * @example
 * ```ts
 * import { parseChatRequest } from "./wire.ts";
 * const req = parseChatRequest({ model: "plan", messages: [{ role: "user", content: "hi" }] });
 * console.log("error" in req ? req.error : req.messages.length); // 1
 * ```
 */
export function parseChatRequest(body: unknown): ChatRequest | { error: string } {
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) =>
      `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`
    );
    return { error: `Invalid chat completions request: ${issues.join("; ")}` };
  }
  const b = parsed.data;
  const messages = b.messages.map((m): ChatMessage => {
    const c = text(m.content);
    if (m.role === "assistant") {
      const msg: AssistantMessage = { role: "assistant", content: c };
      if (m.tool_calls?.length) {
        msg.tool_calls = m.tool_calls.map((t): ToolCall => ({
          id: t.id,
          type: "function",
          function: { name: t.function.name, arguments: t.function.arguments },
        }));
      }
      return msg;
    }
    if (m.role === "tool") {
      return {
        role: "tool",
        tool_call_id: m.tool_call_id ?? "",
        name: m.name ?? "",
        content: c ?? "",
      };
    }
    // "developer" is the newer name of "system"; it is counted under its own role name.
    return { role: m.role, content: c ?? "" } as ChatMessage;
  });
  const tools = (b.tools ?? []).map((t): ToolDefinition => ({
    type: "function",
    function: {
      name: t.function.name,
      description: t.function.description ?? "",
      parameters: t.function.parameters ?? {},
    },
  }));
  const caps = [b.max_tokens, b.max_completion_tokens].filter((n): n is number => n != null);
  return {
    model: b.model,
    messages,
    tools,
    maxTokens: caps.length ? Math.min(...caps) : undefined,
    stream: b.stream === true,
    includeUsage: b.stream_options?.include_usage === true,
    ...b.response_format ? { responseFormat: b.response_format } : {},
  };
}

/** The OpenAI usage object. */
export interface WireUsage extends Usage {
  /** prompt_tokens + completion_tokens. */
  total_tokens: number;
}

/**
 * Builds the OpenAI usage object.
 *
 * @example
 * ```ts
 * import { wireUsage } from "./wire.ts";
 * console.log(wireUsage({ prompt_tokens: 10, completion_tokens: 2 }).total_tokens); // 12
 * ```
 */
export function wireUsage(usage: Usage): WireUsage {
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

/** What the provider answers one request with, before serialisation. */
export interface Completion {
  /** The completion id (`chatcmpl-…`). */
  id: string;
  /** Unix time in seconds. */
  created: number;
  /** The model name echoed back. */
  model: string;
  /** The reply. */
  message: AssistantMessage;
  /** Why the reply ended. */
  finishReason: "stop" | "tool_calls" | "length";
  /** Real token counts. */
  usage: Usage;
}

/**
 * The body of a non-streaming `chat.completion` response.
 *
 * @example
 * ```ts
 * import { completionBody } from "./wire.ts";
 * const body = completionBody({
 *   id: "chatcmpl-1",
 *   created: 0,
 *   model: "echo",
 *   message: { role: "assistant", content: "hi" },
 *   finishReason: "stop",
 *   usage: { prompt_tokens: 9, completion_tokens: 1 },
 * });
 * console.log(body);
 * ```
 */
export function completionBody(c: Completion): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: c.message.content };
  if (c.message.tool_calls?.length) message["tool_calls"] = c.message.tool_calls;
  return {
    id: c.id,
    object: "chat.completion",
    created: c.created,
    model: c.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: c.finishReason }],
    usage: wireUsage(c.usage),
  };
}

/** Splits text into word-sized pieces (at most 8 characters) that concatenate back to it. */
function pieces(s: string): string[] {
  return (s.match(/\s*\S+\s*|\s+/g) ?? []).flatMap((p) => p.match(/[^]{1,8}/g) ?? []);
}

/**
 * The SSE body of a streamed completion: a role chunk, content chunks (a word or
 * at most 8 characters each), tool call
 * chunks (id and name first, then the arguments in two deltas), a finish chunk,
 * the usage chunk if asked for, and `data: [DONE]`.
 *
 * @example
 * ```ts
 * import { streamBody } from "./wire.ts";
 * const body = streamBody({
 *   id: "chatcmpl-1",
 *   created: 0,
 *   model: "echo",
 *   message: { role: "assistant", content: "hi" },
 *   finishReason: "stop",
 *   usage: { prompt_tokens: 9, completion_tokens: 1 },
 * }, true);
 * console.log(body);
 * ```
 */
export function streamBody(c: Completion, includeUsage: boolean): string {
  return streamEvents(c, includeUsage).join("");
}

/**
 * The events of {@link streamBody}, one string (`data: …\n\n`) each, so a
 * server can pause between them.
 *
 * @example
 * ```ts
 * import { streamEvents } from "./wire.ts";
 * const events = streamEvents({
 *   id: "chatcmpl-1",
 *   created: 0,
 *   model: "echo",
 *   message: { role: "assistant", content: "hello there" },
 *   finishReason: "stop",
 *   usage: { prompt_tokens: 9, completion_tokens: 2 },
 * }, false);
 * console.log(events.length); // 5: role, "hello ", "there", finish, [DONE]
 * ```
 */
export function streamEvents(c: Completion, includeUsage: boolean): string[] {
  const head = { id: c.id, object: "chat.completion.chunk", created: c.created, model: c.model };
  const extra = includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      ...head,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    });
  const out: string[] = [];
  out.push(chunk({ role: "assistant", content: c.message.content === null ? null : "" }));
  for (const p of pieces(c.message.content ?? "")) out.push(chunk({ content: p }));
  (c.message.tool_calls ?? []).forEach((call, index) => {
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    out.push(chunk({
      tool_calls: [{
        index,
        id: call.id,
        type: "function",
        function: { name: call.function.name, arguments: "" },
      }],
    }));
    for (const part of [args.slice(0, half), args.slice(half)]) {
      if (part) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  out.push(chunk({}, c.finishReason));
  if (includeUsage) out.push(JSON.stringify({ ...head, choices: [], usage: wireUsage(c.usage) }));
  return [...out, "[DONE]"].map((d) => `data: ${d}\n\n`);
}

/**
 * An OpenAI-style error response: `{error: {message, type, code}}`.
 *
 * @example
 * ```ts
 * import { errorResponse } from "./wire.ts";
 * const res = errorResponse(404, "No such model", "invalid_request_error", "model_not_found");
 * console.log(res.status); // 404
 * ```
 */
export function errorResponse(
  status: number,
  message: string,
  type: string,
  code: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error: { message, type, param: null, code } }, { status, headers });
}
