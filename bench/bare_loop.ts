/**
 * The floor: the chapter's minimal loop, in this process, against the same
 * in-process scripted provider. Call the model (one `fetch`), push the reply,
 * run its tools, push their results. No limits (beyond the turn count that
 * stops `runaway`), no validation, no trace, no store, no cost. With
 * `stream`, the reply is asked for as SSE and read by bench/bare_stream.ts:
 * the streaming floor.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage } from "../harness/messages.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { ToolContext } from "../harness/tool.ts";
import { toolDefinitions } from "../harness/tool.ts";
import type { Recorder } from "./instrument.ts";
import { bareBody } from "./bare_body.ts";
import { readSseMessage } from "./bare_stream.ts";

const URL_ = "http://scripted.reins.local/v1/chat/completions";

/** What the bare loop returns. */
export interface BareResult {
  messages: ChatMessage[];
  output: string | null;
  turns: number;
}

/**
 * Runs `task` through the bare loop. `callModel` (request JSON, `fetch`,
 * reply JSON) is recorded as the model span, exactly what the timed `Model`
 * covers for reins; tools should come from `timedTools` with the same recorder.
 */
export async function bareLoop(
  fetchFn: typeof fetch,
  scenario: string,
  task: string,
  tools: readonly AnyTool[],
  rec: Recorder,
  maxTurns = Infinity,
  stream = false,
): Promise<BareResult> {
  const signal = new AbortController().signal;
  const defs = toolDefinitions(tools);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages: ChatMessage[] = [{ role: "user", content: task }];
  const callModel = async (): Promise<AssistantMessage> => {
    const t0 = performance.now();
    try {
      const res = await fetchFn(URL_, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bareBody(scenario, messages, defs, stream),
        signal,
      });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      if (stream) return await readSseMessage(res.body!);
      const body = await res.json();
      return body.choices[0].message;
    } finally {
      rec.model.push([t0, performance.now()]);
    }
  };
  for (let turn = 1; turn <= maxTurns; turn++) {
    const message = await callModel();
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (!calls.length) return { messages, output: message.content, turns: turn };
    for (const c of calls) {
      const tool = byName.get(c.function.name)!;
      const ctx: ToolContext = {
        signal,
        progress: () => {},
        runId: "bare",
        callId: c.id,
        idempotencyKey: `bare:${c.id}`,
        runChild: () => Promise.reject(new Error("the bare loop runs no children")),
      };
      const result = await tool.run(JSON.parse(c.function.arguments), ctx);
      messages.push({
        role: "tool",
        tool_call_id: c.id,
        name: c.function.name,
        content: String(result),
      });
    }
  }
  return { messages, output: null, turns: maxTurns };
}
