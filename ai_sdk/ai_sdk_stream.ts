/**
 * An AI SDK `doStream` result read to its end: text deltas go to `onText` as
 * they arrive, and the parts (text, tool calls from `tool-input-*` deltas or a
 * whole `tool-call`, `finish` with usage, `response-metadata`) are assembled
 * into the result `doGenerate` would have given, so one reader makes the reply.
 *
 * @module
 */
import type { GenerateResult } from "./ai_sdk_reply.ts";
import { raceSignal } from "../harness/race_signal.ts";
import { isObject } from "../harness/is_object.ts";

/**
 * Reads a v3/v4 stream of language-model parts into a generate result. An
 * `error` part is thrown as its error (so the caller's retry policy sees it);
 * the stream is cancelled however the read ends.
 *
 * @example
 * ```ts
 * import { readAiSdkStream } from "./ai_sdk_stream.ts";
 * const parts = [
 *   { type: "text-delta", id: "0", delta: "Hel" },
 *   { type: "text-delta", id: "0", delta: "lo." },
 *   { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: {} },
 * ];
 * const stream = ReadableStream.from(parts);
 * const result = await readAiSdkStream(stream, new AbortController().signal, console.log);
 * console.log(result.content); // [{ type: "text", text: "Hello." }]
 * ```
 */
export async function readAiSdkStream(
  stream: ReadableStream<unknown>,
  signal: AbortSignal,
  onText?: (delta: string) => void,
): Promise<GenerateResult> {
  const result: GenerateResult = { content: [], finishReason: undefined };
  // Tool calls being streamed, by id: their place in `content`.
  const inputs = new Map<string, Record<string, unknown>>();
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value: part, done } = await raceSignal(reader.read(), signal);
      if (done) break;
      if (isObject(part)) addPart(part, result, inputs, onText);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return result;
}

/** Adds one stream part to `result` (an `error` part is thrown). */
function addPart(
  part: Record<string, unknown>,
  result: GenerateResult,
  inputs: Map<string, Record<string, unknown>>,
  onText?: (delta: string) => void,
): void {
  const content = result.content as Record<string, unknown>[];
  switch (part["type"]) {
    case "text-delta": {
      if (typeof part["delta"] !== "string" || !part["delta"]) break;
      const last = content.at(-1);
      if (last?.["type"] === "text") last["text"] += part["delta"];
      else content.push({ type: "text", text: part["delta"] });
      onText?.(part["delta"]);
      break;
    }
    case "tool-input-start": {
      const call: Record<string, unknown> = {
        type: "tool-call",
        toolCallId: part["id"],
        toolName: part["toolName"],
        input: "",
        providerExecuted: part["providerExecuted"],
      };
      inputs.set(String(part["id"]), call);
      content.push(call);
      break;
    }
    case "tool-input-delta": {
      const call = inputs.get(String(part["id"]));
      if (call && typeof part["delta"] === "string") call["input"] += part["delta"];
      break;
    }
    case "tool-call": {
      // The whole call: it stands for what its input deltas assembled.
      const call = inputs.get(String(part["toolCallId"]));
      if (call) Object.assign(call, part);
      else content.push({ ...part });
      break;
    }
    case "response-metadata":
      if (typeof part["modelId"] === "string") result.response = { modelId: part["modelId"] };
      break;
    case "finish":
      result.finishReason = part["finishReason"];
      result.usage = part["usage"];
      break;
    case "error":
      throw part["error"];
      // stream-start, reasoning, sources, files, raw, ping: nothing reins keeps.
  }
}
