/**
 * How a finished `deno task run` reports: one JSON object, or a few lines.
 *
 * @module
 */
import type { RunState } from "../harness/state.ts";
import type { ToolResultEvent, TraceEvent } from "../harness/trace.ts";
import { type NodeLabels, nodeLabels } from "./node_labels.ts";
import { spentText } from "../harness/spend_text.ts";

/** The JSON summary printed by `--json` (the last line of stdout). */
export interface RunSummaryJson {
  runId: string;
  /** The agent the run is of (absent on runs made without one). */
  agent?: string;
  status: RunState["status"];
  interruption: RunState["interruption"];
  stopReason: string | null;
  turns: number;
  toolRuns: number;
  usage: RunState["usage"];
  costUsd: number;
  /** Compactions of the prompt (context policy): elisions and summaries. */
  compactions: number;
  /** What the compactions cost (summary calls; part of `costUsd`). */
  compactionCostUsd: number;
  /** The answer: text, or a typed run's value. */
  output: RunState["output"];
  error: string | null;
  /** Why it failed, as data (e.g. `invalid_output` with its issues), when it did. */
  failure?: RunState["failure"];
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
    ...(s.agent === undefined ? {} : { agent: s.agent }),
    status: s.status,
    interruption: s.interruption,
    stopReason: s.stopReason,
    turns: s.turns,
    toolRuns: s.toolRuns,
    usage: s.usage,
    costUsd: Number(s.costUsd.toFixed(9)),
    compactions: s.context?.compactions ?? 0,
    compactionCostUsd: s.context?.costUsd ?? 0,
    output: s.output,
    error: s.error,
    ...s.failure ? { failure: s.failure } : {},
  };
}

/**
 * Human lines for a finished run; the last says what it spent of its budget.
 *
 * @example
 * ```ts
 * import { describeRun } from "./summary.ts";
 * import { newRun } from "../harness/state.ts";
 * const s = { ...newRun("x", { limits: { maxBudgetUsd: 0.01 } }), costUsd: 0.01078 };
 * console.log(describeRun(s).at(-1)); // "  spent $0.010780 of $0.010000 (108%)"
 * ```
 */
export function describeRun(s: RunState, command = "deno task run"): string[] {
  const lines = [
    `run ${s.runId}: ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}`,
    `  turns=${s.turns}  toolRuns=${s.toolRuns}  in=${s.usage.prompt_tokens}  out=${s.usage.completion_tokens}`,
  ];
  if (s.context) {
    lines.push(
      `  compactions=${s.context.compactions}  compaction cost=$${s.context.costUsd.toFixed(6)}` +
        `  (summary covers ${s.context.summaryTurns} turns)`,
    );
  }
  const i = s.interruption;
  if (i?.type === "approval") {
    lines.push(
      `  awaiting a verdict on ${i.toolName}(${JSON.stringify(i.args)}) call ${i.callId}${
        i.runId && i.runId !== s.runId ? ` in child run ${i.runId}` : ""
      }`,
      `  approve: ${command} --approve ${s.runId} ${i.callId}`,
      `  reject:  ${command} --reject ${s.runId} ${i.callId} --reason "..."`,
    );
  }
  if (s.outputSchema && s.output !== null) {
    // A typed run's value, formatted (it passed the run's output schema).
    lines.push(
      "  output:",
      ...JSON.stringify(s.output, null, 2).split("\n").map((l) => `    ${l}`),
    );
  } else if (s.output !== null) lines.push(`  answer: ${JSON.stringify(s.output)}`);
  for (const i of s.failure?.kind === "invalid_output" ? s.failure.issues : []) {
    lines.push(`  invalid output at ${i.path}: ${i.message}`);
  }
  // The reason usually quotes the error already: say it once.
  if (s.error !== null && !s.stopReason?.includes(s.error)) lines.push(`  error: ${s.error}`);
  // Last: what it cost against what it could, digits enough to show an overshoot.
  lines.push(`  ${spentText(s.costUsd, s.limits.maxBudgetUsd)}`);
  return lines;
}

/**
 * Live progress lines for the tree of run `rootId`: each event of a child run
 * is labelled with the node it comes from, the tool that started it and its
 * call id (`[research:call_0_1] turn 2 ...`; deeper nodes join their path with
 * ` > `), and a child's exit gets a line of its own.
 *
 * @example
 * ```ts
 * import { progressPrinter } from "./summary.ts";
 * const line = progressPrinter("r", 0);
 * line({ type: "tool_start", runId: "r", at: "", toolName: "research", callId: "c1", args: "{}" });
 * console.log(line({ type: "tool_start", runId: "r.c1", at: "", toolName: "list_files", callId: "c2", args: "{}" }));
 * // [research:c1] tool list_files({})  (t+… ms)
 * ```
 */
export function progressPrinter(
  rootId: string,
  t0: number,
  labels: NodeLabels = nodeLabels(rootId),
): (e: TraceEvent) => string | null {
  return (e) => {
    labels.see(e);
    const tag = labels.label(e.runId);
    if (e.type === "run_stopped") {
      return tag ? `  ${tag}stopped ${e.status}: ${e.reason}` : null;
    }
    const line = progressLine(e, t0);
    return line === null || !tag ? line : line.replace(/^ {2}/, `  ${tag}`);
  };
}

/** A live progress line for a trace event, or null to print nothing. */
export function progressLine(e: TraceEvent, t0: number): string | null {
  const t = `(t+${Math.round(performance.now() - t0)} ms)`;
  switch (e.type) {
    case "turn":
      return `  turn ${e.turn}: in=${e.prompt_tokens} out=${e.completion_tokens} cost=$${
        e.costUsd.toFixed(6)
      } ${e.finish}  ${t}`;
    case "compaction":
      return `  compaction ${e.compaction} (${e.strategy}, ${e.reason}): prompt ${e.tokensBefore} -> ${e.tokensAfter} tokens, cost=$${
        e.compactionCostUsd.toFixed(6)
      }  ${t}`;
    case "tool_start":
      return `  tool ${e.toolName}(${e.args})  ${t}`;
    case "tool_progress":
      return `  progress: ${e.label}  ${t}`;
    case "tool_result":
      if (e.suspended) return `  tool ${e.toolName} ${suspendedWords(e.runId, e.suspended)}  ${t}`;
      return `  tool ${e.toolName} ${e.ok ? "ok" : `error: ${e.error}`}${
        e.cached ? " (cached)" : e.replayed ? ` (replayed from run ${e.replayed.runId})` : ""
      } in ${Math.round(e.ms)} ms`;
    case "user_message":
      return `  you> ${e.content}  ${t}`;
    case "approval_required":
      return `  tool ${e.toolName} awaits a verdict (${
        e.why === "uncertain_effect" ? "its effect is uncertain" : "needs approval"
      })  ${t}`;
    case "run_handed_over":
      return `  handed over by ${e.by} (it goes on elsewhere): ${e.reason}  ${t}`;
    case "output_invalid":
      return `  output invalid (${e.repair ? `repair ${e.repair} asked` : "no repair left"}): ${
        e.issues.map((i) => `${i.path}: ${i.message}`).join("; ")
      }  ${t}`;
    default:
      return null;
  }
}

/** What a call that holds its run (no result) waits on, said from run `runId`. */
function suspendedWords(
  runId: string,
  { interruption: i, reason }: NonNullable<ToolResultEvent["suspended"]>,
): string {
  if (i.type !== "approval") return `stopped: ${reason}`;
  const holder = i.runId ?? runId;
  const child = holder.startsWith(`${runId}.`) ? holder.slice(runId.length + 1) : holder;
  return `waits: child ${child} awaits a verdict on ${i.toolName} (${i.callId})`;
}
