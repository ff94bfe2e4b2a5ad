/**
 * The bare loop's streamed reply: the floor of reading a chat-completions
 * SSE body by hand. One reader (BYOB with one reused 16 KiB buffer where the
 * body is a byte stream, else the default reader), one streaming
 * `TextDecoder`, lines split by `indexOf`, each `data:` line parsed and its
 * delta appended. No validation, no abort wiring beyond the fetch's signal.
 *
 * @module
 */
import type { AssistantMessage, ToolCall } from "../harness/messages.ts";

// deno-lint-ignore no-explicit-any
type Chunk = any;

/** Reads one streamed reply whole into its assistant message. */
export async function readSseMessage(body: ReadableStream<Uint8Array>): Promise<AssistantMessage> {
  const decoder = new TextDecoder();
  let content: string | null = null;
  const calls: ToolCall[] = [];
  let rest = "";
  const take = (text: string) => {
    rest += text;
    let nl;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const delta = (JSON.parse(line.slice(6)) as Chunk).choices?.[0]?.delta;
      if (!delta) continue;
      if (delta.content) content = (content ?? "") + delta.content;
      for (const t of delta.tool_calls ?? []) {
        const c = calls[t.index] ??= {
          id: t.id,
          type: "function",
          function: { name: "", arguments: "" },
        };
        if (t.function?.name) c.function.name += t.function.name;
        if (t.function?.arguments) c.function.arguments += t.function.arguments;
      }
    }
  };
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch { /* not a byte stream */ }
  if (byob) {
    let buf = new Uint8Array(16_384);
    for (;;) {
      const { value, done } = await byob.read(buf);
      if (done) break;
      take(decoder.decode(value, { stream: true }));
      buf = new Uint8Array(value.buffer); // the same memory, handed back
    }
  } else {
    const reader = body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      take(decoder.decode(value, { stream: true }));
    }
  }
  take(decoder.decode());
  const message: AssistantMessage = { role: "assistant", content };
  if (calls.length) message.tool_calls = calls;
  return message;
}
