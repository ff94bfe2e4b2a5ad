/**
 * Message contents in the shape the GenAI conventions give them
 * (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`), recorded only when the user opts in.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage } from "../harness/messages.ts";

/** The variable the conventions' instrumentations read to capture contents. */
export const CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

type Part =
  | { type: "text"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: string }
  | { type: "tool_call_response"; id: string; response: string };

interface GenAiMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

function partsOf(m: ChatMessage): Part[] {
  if (m.role === "tool") {
    return [{ type: "tool_call_response", id: m.tool_call_id, response: m.content }];
  }
  const parts: Part[] = m.content ? [{ type: "text", content: m.content }] : [];
  if (m.role === "assistant") {
    for (const c of m.tool_calls ?? []) {
      parts.push({
        type: "tool_call",
        id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      });
    }
  }
  return parts;
}

/**
 * The span attributes carrying a call's contents: system instructions, input
 * messages, and the reply when there is one (JSON strings).
 *
 * @example
 * ```ts
 * import { contentAttributes } from "./message_content.ts";
 * const a = contentAttributes([{ role: "user", content: "hi" }]);
 * console.log(a["gen_ai.input.messages"]); // [{"role":"user","parts":[{"type":"text","content":"hi"}]}]
 * ```
 */
export function contentAttributes(
  messages: readonly ChatMessage[],
  reply?: { message: AssistantMessage; finishReason: string },
): Record<string, string> {
  const system = messages.filter((m) => m.role === "system").map((m) => partsOf(m)).flat();
  const input: GenAiMessage[] = messages.filter((m) => m.role !== "system").map((m) => ({
    role: m.role,
    parts: partsOf(m),
  }));
  const out: Record<string, string> = { "gen_ai.input.messages": JSON.stringify(input) };
  if (system.length) out["gen_ai.system_instructions"] = JSON.stringify(system);
  if (reply) {
    const output: GenAiMessage = {
      role: "assistant",
      parts: partsOf(reply.message),
      finish_reason: reply.finishReason,
    };
    out["gen_ai.output.messages"] = JSON.stringify([output]);
  }
  return out;
}

/**
 * Whether the capture switch's value turns capture on: `true`, `span_only` or
 * `span_and_event` (any case); anything else, or nothing, leaves it off.
 *
 * @example
 * ```ts
 * import { captureSwitchOn } from "./message_content.ts";
 * console.log(captureSwitchOn("true"), captureSwitchOn(undefined)); // true false
 * ```
 */
export function captureSwitchOn(value: string | undefined): boolean {
  return ["true", "span_only", "span_and_event"].includes((value ?? "").trim().toLowerCase());
}

/** The capture switch from the environment; off when it cannot be read. */
export function captureFromEnv(): boolean {
  try {
    const status = Deno.permissions.querySync({ name: "env", variable: CAPTURE_CONTENT_ENV });
    return status.state === "granted" && captureSwitchOn(Deno.env.get(CAPTURE_CONTENT_ENV));
  } catch {
    return false;
  }
}
