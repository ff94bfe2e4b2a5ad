// Shared set-up of the MCP tests: the reference servers from npm, pinned here,
// run with this Deno, and a model that plays a script of turns.
import type { Model, ModelRequest } from "../harness/model.ts";
import type { AssistantMessage, ToolCall, ToolMessage } from "../harness/messages.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { DEV_LOCK, ROOT } from "./run_script.ts";

// Test-only packages: pinned here and locked in deno.dev.lock, so that `deno task run`
// never downloads them (README, "Dependencies").
const SERVERS: Record<string, string> = {
  "@modelcontextprotocol/server-filesystem":
    "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
  "@modelcontextprotocol/server-everything":
    "npm:@modelcontextprotocol/server-everything@2026.8.31",
};

/** The command that starts a pinned npm MCP server over stdio (offline once cached). */
export function serverCommand(pkg: string, ...args: string[]) {
  const specifier = SERVERS[pkg];
  if (!specifier) throw new Error(`${pkg} is not one of the MCP servers pinned in mcp_helpers.ts`);
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--frozen", DEV_LOCK, "--quiet", specifier, ...args],
    cwd: ROOT,
    stderr: "ignore" as const,
  };
}

/** A tool call as a model writes it. */
export function call(id: string, name: string, args: unknown): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

/** One turn of a script: the reply to give, seeing the request. */
export type Turn = (request: ModelRequest) => AssistantMessage;

/** Says what the last tool messages said, so a test can read them back in the output. */
export const reportTools: Turn = (request) => {
  const results: string[] = [];
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== "tool") break;
    results.unshift((m as ToolMessage).content);
  }
  return { role: "assistant", content: results.join("\n---\n") };
};

/** Calls these tools in one message. */
export const calls = (...list: ToolCall[]): Turn => () => ({
  role: "assistant",
  content: null,
  tool_calls: list,
});

/** A model playing `turns` in order (then answering "done"); it records every request. */
export function scriptModel(turns: Turn[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: "script",
    requests,
    complete(request, signal) {
      signal.throwIfAborted();
      // The callbacks (onText, onReset) are not data: keep what was asked.
      const { onText: _text, onReset: _reset, ...asked } = request;
      requests.push(structuredClone(asked));
      const turn = turns[requests.length - 1];
      const message = turn ? turn(request) : { role: "assistant" as const, content: "done" };
      return Promise.resolve({
        message,
        usage: { prompt_tokens: 10, completion_tokens: 5 },
        finishReason: message.tool_calls ? "tool_calls" : "stop",
      });
    },
  };
}

/** A trace sink that keeps the events, and can wait for one. */
export function recorder() {
  const events: TraceEvent[] = [];
  const waiters: { test: (e: TraceEvent) => boolean; resolve: (e: TraceEvent) => void }[] = [];
  return {
    events,
    sink: (e: TraceEvent) => {
      events.push(e);
      for (const w of [...waiters]) {
        if (w.test(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
      }
    },
    next(test: (e: TraceEvent) => boolean): Promise<TraceEvent> {
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

/** The tool messages of a transcript, by call id. */
export function toolResults(messages: readonly { role: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of messages) {
    if (m.role === "tool") out[(m as ToolMessage).tool_call_id] = (m as ToolMessage).content;
  }
  return out;
}
