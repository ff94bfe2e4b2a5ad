/**
 * What each run of a tree did with the tool calls of its last turn that made any, as
 * the server knows it: done, awaiting a verdict, rejected (with the words the
 * model read), waiting on a subagent's verdict, running, or stopped. The
 * page's live events say more while a tool runs (progress), but never say a
 * call was rejected or that a `research` call is held by its child: these
 * rows do, with or without JavaScript.
 *
 * @module
 */
import type { RunState } from "../../harness/state.ts";
import type { RunStore } from "../../harness/run_store.ts";
import { childRunId } from "../../subagents/agent_tool.ts";
import { runLabel } from "./format.ts";
import { type Html, html } from "./html.ts";

/** One tool call of a run's last turn that made calls. */
export interface ToolRow {
  /** The model's call id. */
  callId: string;
  /** The tool's name. */
  name: string;
  /** Where the call is (`child-waiting`: its subagent awaits a verdict). */
  state: "ok" | "running" | "stopped" | "waiting" | "child-waiting" | "rejected";
  /** A few words on it: the rejection, whose verdict it waits on, … */
  label: string;
}

/** The words shown for each {@link ToolRow.state}. */
export const TOOL_STATE_WORDS: Record<ToolRow["state"], string> = {
  ok: "done",
  running: "running",
  stopped: "stopped",
  waiting: "waiting",
  "child-waiting": "waiting",
  rejected: "rejected",
};

/**
 * The rows of run `state`'s last turn; `nodes` are the tree's states by run
 * id (a `research` call's child is among them).
 *
 * @example
 * ```ts
 * import { toolRows } from "./tool_rows.ts";
 * import { newRun } from "../../harness/state.ts";
 * import { reject } from "../../harness/verdict.ts";
 * const s = newRun("clean up");
 * s.messages.push({ role: "assistant", content: null, tool_calls: [
 *   { id: "c1", type: "function", function: { name: "delete_file", arguments: '{"path":"a"}' } },
 * ] });
 * s.status = "interrupted";
 * s.interruption = { type: "approval", callId: "c1", toolName: "delete_file", args: { path: "a" }, why: "needs_approval" };
 * console.log(toolRows(reject(s, "c1", "keep it"), new Map())[0].state); // rejected
 * ```
 */
export function toolRows(state: RunState, nodes: ReadonlyMap<string, RunState>): ToolRow[] {
  const last = state.messages.findLast((m) => m.role === "assistant" && !!m.tool_calls?.length);
  if (last?.role !== "assistant" || !last.tool_calls) return [];
  const results = new Set(
    state.messages.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []),
  );
  const i = state.interruption;
  return last.tool_calls.map((call): ToolRow => {
    const base = { callId: call.id, name: call.function.name };
    const rejection = state.rejected.find((r) => r.callId === call.id);
    if (rejection) return { ...base, state: "rejected", label: rejection.reason };
    if (results.has(call.id)) return { ...base, state: "ok", label: "" };
    const child = nodes.get(childRunId(state.runId, call.id));
    const ci = child?.interruption;
    if (child?.status === "interrupted" && ci?.type === "approval") {
      const holder = ci.runId ?? child.runId;
      return {
        ...base,
        state: "child-waiting",
        label: `waits on your verdict on ${ci.toolName} in ${runLabel(holder)}`,
      };
    }
    if (state.status === "interrupted" && i?.type === "approval" && i.callId === call.id) {
      return { ...base, state: "waiting", label: "awaits your verdict" };
    }
    return { ...base, state: state.status === "running" ? "running" : "stopped", label: "" };
  });
}

/**
 * The rows of every run of a tree, by run id (a run whose state cannot be
 * read shows none: its node says why).
 */
export async function loadToolRows(
  store: RunStore,
  runIds: readonly string[],
): Promise<Record<string, ToolRow[]>> {
  const states = new Map<string, RunState>();
  await Promise.all(runIds.map(async (id) => {
    try {
      states.set(id, await store.load(id));
    } catch {
      // Unreadable or gone: no rows for it.
    }
  }));
  const out: Record<string, ToolRow[]> = {};
  for (const [id, state] of states) out[id] = toolRows(state, states);
  return out;
}

/** One row, in the markup the page's script also builds (it merges these with live events). */
export function renderToolRow(r: ToolRow): Html {
  const fraction = r.state === "ok" ? "1" : "0";
  return html`
    <div class="tool state-${r.state}" data-call-id="${r.callId}"
      data-state="${r
        .state}"><span class="tool-name">${r
        .name}</span><progress max="1" value="${fraction}"></progress><span
          class="tool-label" title="${r.label}">${r
            .label}</span><span class="tool-state">${TOOL_STATE_WORDS[
              r.state
            ]}</span></div>
  `;
}
