/**
 * How a finished `deno task run` reports: one JSON object, or a few lines.
 *
 * @module
 */
import type { RunState } from "../harness/state.ts";
import type { TraceEvent } from "../harness/trace.ts";

/** The JSON summary printed by `--json` (the last line of stdout). */
export interface RunSummaryJson {
  runId: string;
  status: RunState["status"];
  interruption: RunState["interruption"];
  stopReason: string | null;
  turns: number;
  toolRuns: number;
  usage: RunState["usage"];
  costUsd: number;
  output: string | null;
  error: string | null;
}

/**
 * The summary of a run as plain data.
 *
 * @example
 * ```ts
 * import { summarize } from "./summary.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(summarize(newRun("x")).status); // running
 * ```
 */
export function summarize(s: RunState): RunSummaryJson {
  return {
    runId: s.runId,
    status: s.status,
    interruption: s.interruption,
    stopReason: s.stopReason,
    turns: s.turns,
    toolRuns: s.toolRuns,
    usage: s.usage,
    costUsd: Number(s.costUsd.toFixed(9)),
    output: s.output,
    error: s.error,
  };
}

/** Human lines for a finished run. */
export function describeRun(s: RunState): string[] {
  const lines = [
    `run ${s.runId}: ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}`,
    `  turns=${s.turns}  toolRuns=${s.toolRuns}  in=${s.usage.prompt_tokens}  out=${s.usage.completion_tokens}  cost=$${
      s.costUsd.toFixed(6)
    }`,
  ];
  const i = s.interruption;
  if (i?.type === "approval") {
    lines.push(
      `  awaiting a verdict on ${i.toolName}(${JSON.stringify(i.args)}) call ${i.callId}${
        i.runId && i.runId !== s.runId ? ` in child run ${i.runId}` : ""
      }`,
      `  approve: deno task run --approve ${s.runId} ${i.callId}`,
      `  reject:  deno task run --reject ${s.runId} ${i.callId} --reason "..."`,
    );
  }
  if (s.output !== null) lines.push(`  answer: ${JSON.stringify(s.output)}`);
  if (s.error !== null) lines.push(`  error: ${s.error}`);
  return lines;
}

/** A live progress line for a trace event, or null to print nothing. */
export function progressLine(e: TraceEvent, t0: number): string | null {
  const t = `(t+${Math.round(performance.now() - t0)} ms)`;
  switch (e.type) {
    case "turn":
      return `  turn ${e.turn}: in=${e.prompt_tokens} out=${e.completion_tokens} cost=$${
        e.costUsd.toFixed(6)
      } ${e.finish}  ${t}`;
    case "tool_start":
      return `  tool ${e.toolName}(${e.args})  ${t}`;
    case "tool_progress":
      return `  progress: ${e.label}  ${t}`;
    case "tool_result":
      return `  tool ${e.toolName} ${e.ok ? "ok" : `error: ${e.error}`}${
        e.cached ? " (cached)" : ""
      } in ${Math.round(e.ms)} ms`;
    default:
      return null;
  }
}
