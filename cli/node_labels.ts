/**
 * How the CLI names the nodes of a tree in its live output: a child run is
 * `[research:call_0_1]` (the tool that started it and its call id), deeper
 * nodes join their path with ` > `; the root has no label. Progress lines and
 * streamed text use the same labels.
 *
 * @module
 */
import type { TraceEvent } from "../harness/trace.ts";

/** Labels of the nodes of one tree, learned from its `tool_start` events. */
export interface NodeLabels {
  /** Learns from an event (a `tool_start` names the tool of a child to come). */
  see(e: TraceEvent): void;
  /** `[research:call_0_1] ` for a child run (with a trailing space), "" for the root. */
  label(runId: string): string;
}

/**
 * The labels of the tree of `rootId`.
 *
 * @example
 * ```ts
 * import { nodeLabels } from "./node_labels.ts";
 * const labels = nodeLabels("r");
 * labels.see({ type: "tool_start", runId: "r", at: "", toolName: "research", callId: "c1", args: "{}" });
 * console.log(JSON.stringify(labels.label("r.c1")), JSON.stringify(labels.label("r"))); // "[research:c1] " ""
 * ```
 */
export function nodeLabels(rootId: string): NodeLabels {
  const toolOf = new Map<string, string>(); // child run id -> the tool that started it
  return {
    see(e) {
      if (e.type === "tool_start") toolOf.set(`${e.runId}.${e.callId}`, e.toolName);
    },
    label(runId) {
      if (runId === rootId || !runId.startsWith(`${rootId}.`)) return "";
      let parent = rootId;
      const parts: string[] = [];
      for (const callId of runId.slice(rootId.length + 1).split(".")) {
        const id = `${parent}.${callId}`;
        const tool = toolOf.get(id);
        parts.push(tool ? `${tool}:${callId}` : callId);
        parent = id;
      }
      return `[${parts.join(" > ")}] `;
    },
  };
}
