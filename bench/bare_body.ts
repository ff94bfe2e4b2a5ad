/**
 * The request body of the bare loops (bench/bare_loop.ts, bench/tiny_loop.ts):
 * the transcript and the tools, and, streamed, the fields that ask for SSE
 * with usage in the last chunk. Imports nothing at run time.
 *
 * @module
 */
import type { ChatMessage } from "../harness/messages.ts";

/** The JSON body of one chat-completions call of a bare loop. */
export function bareBody(
  model: string,
  messages: readonly ChatMessage[],
  tools: readonly unknown[],
  stream: boolean,
): string {
  return JSON.stringify(
    stream
      ? { model, messages, tools, stream, stream_options: { include_usage: true } }
      : { model, messages, tools },
  );
}
