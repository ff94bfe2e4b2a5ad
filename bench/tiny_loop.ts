/**
 * The truly bare loop of issue 29's fresh-process figures: a hand-written
 * fetch loop over the two tiny tools (bench/tiny_tools.ts), importing zod and
 * no module of reins (bench/bare_stream.ts reads a streamed reply; its harness
 * imports are types only). Call the model, push the reply, run its tools,
 * push their results; no validation, no limits, no trace, no cost.
 *
 * @module
 */
import { z } from "zod";
import type { AssistantMessage, ChatMessage } from "../harness/messages.ts";
import { bareBody } from "./bare_body.ts";
import { readSseMessage } from "./bare_stream.ts";
import { TINY_TOOLS } from "./tiny_tools.ts";

/** What one bare run returns. */
export interface TinyResult {
  output: string | null;
  turns: number;
}

/** The request's `tools`: each tiny tool's JSON Schema, made once. */
const DEFINITIONS = TINY_TOOLS.map((t) => ({
  type: "function",
  function: { name: t.name, description: t.description, parameters: z.toJSONSchema(t.parameters) },
}));

/** Runs `scenario` for `task` at `baseUrl` (OpenAI-compatible), at most `maxTurns` turns. */
export async function tinyLoop(
  baseUrl: string,
  scenario: string,
  task: string,
  maxTurns: number,
  stream: boolean,
): Promise<TinyResult> {
  const messages: ChatMessage[] = [{ role: "user", content: task }];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bareBody(scenario, messages, DEFINITIONS, stream),
    });
    if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
    const message: AssistantMessage = stream
      ? await readSseMessage(res.body!)
      : (await res.json()).choices[0].message;
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (!calls.length) return { output: message.content, turns: turn };
    for (const c of calls) {
      const tool = TINY_TOOLS.find((t) => t.name === c.function.name)!;
      const content = tool.run(JSON.parse(c.function.arguments));
      messages.push({ role: "tool", tool_call_id: c.id, name: c.function.name, content });
    }
  }
  return { output: null, turns: maxTurns };
}
