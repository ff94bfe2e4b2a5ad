/**
 * Replay in forks: a read-only call a fork repeats (same tool, same
 * arguments) is served from the result the source run recorded for it, not
 * run again ($0, traced `replayed`). Writes are never replayed.
 *
 * Only results the world could still give are served: those the source
 * recorded after the fork point and before its first write there (a later
 * read saw that write's effect), and only until the fork itself makes a call
 * to a tool that is not read-only (from then on its world differs). Results
 * that read as errors (`Error...`) are not served: the call runs again.
 *
 * @module
 */
import type { ChatMessage } from "./messages.ts";
import type { RunContext } from "./run_context.ts";
import type { AnyTool } from "./run_options.ts";
import type { RunState } from "./state.ts";
import { callSignature } from "./dedupe.ts";
import { forkPoint } from "./fork.ts";

/** A recorded result a fork may be served: the source's call and its result. */
export interface Recorded {
  /** The source run. */
  runId: string;
  /** The source's call id. */
  callId: string;
  /** The result text in the source's transcript. */
  content: string;
}

/**
 * The results of `source`'s read-only calls after turn `atTurn`, up to its
 * first write there, by call signature (the first recorded wins).
 *
 * @example
 * ```ts
 * import { recordedReads } from "./replay.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("hi");
 * s.messages.push(
 *   { role: "assistant", content: null, tool_calls: [
 *     { id: "c1", type: "function", function: { name: "list_files", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", name: "list_files", content: "a.txt" },
 * );
 * const tools = new Map([["list_files", { readOnly: true }]]);
 * console.log(recordedReads(s, 0, tools).size); // 1
 * ```
 */
export function recordedReads(
  source: Readonly<RunState>,
  atTurn: number,
  tools: ReadonlyMap<string, Pick<AnyTool, "readOnly">>,
): Map<string, Recorded> {
  const out = new Map<string, Recorded>();
  const messages = source.messages.slice(forkPoint(source, atTurn));
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      if (tools.get(call.function.name)?.readOnly !== true) return out; // the source wrote
      const content = results.get(call.id);
      const signature = signatureOf(call.function.name, call.function.arguments);
      if (content === undefined || signature === null || /^Error\b/.test(content)) continue;
      if (!out.has(signature)) {
        out.set(signature, { runId: source.runId, callId: call.id, content });
      }
    }
  }
  return out;
}

function signatureOf(name: string, args: string): string | null {
  try {
    return callSignature(name, JSON.parse(args));
  } catch {
    return null;
  }
}

/** Whether the fork has called a tool that is not read-only since its fork point. */
function forkWrote(
  messages: readonly ChatMessage[],
  atTurn: number,
  tools: ReadonlyMap<string, AnyTool>,
): boolean {
  let replies = 0;
  for (const m of messages) {
    if (m.role !== "assistant" || ++replies <= atTurn) continue;
    if (m.tool_calls?.some((c) => tools.get(c.function.name)?.readOnly !== true)) return true;
  }
  return false;
}

/** Per `run()` call: the source's recorded reads, loaded once, on the first read-only call. */
const indexes = new WeakMap<RunContext, Promise<Map<string, Recorded>>>();

/**
 * The recorded result that answers this read-only call of a fork, or
 * undefined (not a fork, no store, not recorded, or the fork has written).
 */
export async function replayedResult(
  ctx: RunContext,
  r: { tool: AnyTool; signature: string },
  tools: ReadonlyMap<string, AnyTool>,
): Promise<Recorded | undefined> {
  const origin = ctx.state.forkedFrom;
  const store = ctx.options.store;
  if (!origin || !store || !r.tool.readOnly) return undefined;
  if (forkWrote(ctx.state.messages, origin.turn, tools)) return undefined;
  let index = indexes.get(ctx);
  if (!index) {
    const read = store.read?.bind(store) ?? store.load.bind(store);
    // A source deleted or unreadable since: nothing to replay, the calls run.
    index = read(origin.runId).then((s) => recordedReads(s, origin.turn, tools))
      .catch(() => new Map());
    indexes.set(ctx, index);
  }
  return (await index).get(r.signature);
}
