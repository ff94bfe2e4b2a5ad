/**
 * Experiment 8: approval as a return. The run stops before a deletion; each
 * verdict continues the same stored state, in a fresh copy of the workspace.
 *
 * @module
 */
import type { RunState } from "../../harness/state.ts";
import { approve, defaultRejectionText, reject } from "../../harness/verdict.ts";
import { DELETED_ANSWER } from "../../testing/scenarios.ts";
import { readEffects } from "../../tools/delete_file.ts";
import { heading, type Out, play, printTable, withWorkspace } from "./common.ts";
import { quote } from "../table.ts";

/** A verdict and how it is written into the state. */
type Verdict = [label: string, apply: (s: RunState, callId: string) => RunState];

/**
 * What a naive harness does with a rejection: it leaves the call's slot in
 * the transcript empty. (Built from `reject()`, then its words erased.)
 */
function naiveEmptyRejection(s: RunState, callId: string): RunState {
  const next = reject(s, callId);
  const last = next.messages.at(-1);
  if (last?.role === "tool") last.content = "";
  return next;
}

const VERDICTS: Verdict[] = [
  ["approve", (s, id) => approve(s, id)],
  ["reject, with a reason", (s, id) => reject(s, id, "keep the logs, I still need them")],
  ["reject, no reason (reins default)", (s, id) => reject(s, id)],
  ["NAIVE harness: empty tool result", naiveEmptyRejection],
];

/**
 * 8. `destructive` stops at turn 2 awaiting approval; then approve, reject
 * with a reason, reject with nothing (reins writes a default sentence), and
 * what a naive harness does (an empty result: the model then lies).
 *
 * @example
 * ```ts
 * import { approvalExperiment } from "./approval.ts";
 * await approvalExperiment(console.log);
 * ```
 */
export async function approvalExperiment(out: Out): Promise<void> {
  heading(out, "8. approval: the run stops before delete_file and returns");
  const stopped = await withWorkspace(async (ws) => {
    const { state } = await play(ws, "destructive");
    const i = state.interruption;
    const call = i?.type === "approval" ? `${i.toolName}(${JSON.stringify(i.args)})` : "-";
    out(
      `  stopped at turn ${state.turns}: ${state.status} / ${i?.type ?? "-"} -> ${call}` +
        `  call id ${i?.type === "approval" ? i.callId : "-"}`,
    );
    out(`  files deleted so far: ${JSON.stringify((await readEffects(ws)).map((e) => e.path))}`);
    return state;
  });
  const i = stopped.interruption;
  if (i?.type !== "approval") throw new Error(`destructive did not stop for approval: ${i?.type}`);
  const rows = [];
  for (const [label, apply] of VERDICTS) {
    const r = await withWorkspace(async (ws) => {
      const { state } = await play(ws, "destructive", { state: apply(stopped, i.callId) });
      const deleted = (await readEffects(ws)).map((e) => e.path);
      // What the model read under the call's id when it wrote its answer.
      const slot = state.messages.find((m) => m.role === "tool" && m.tool_call_id === i.callId);
      return { state, deleted, read: slot?.role === "tool" ? slot.content : "(missing)" };
    });
    const claims = r.state.output === DELETED_ANSWER;
    rows.push([
      label,
      r.state.turns,
      r.state.status,
      JSON.stringify(r.deleted),
      quote(r.read, 44),
      quote(r.state.output),
      claims === r.deleted.length > 0 ? "true" : "LIE",
    ]);
  }
  printTable(
    out,
    ["verdict", "turns", "status", "deleted", "model read", "agent told the user", "report"],
    rows,
  );
  out(`  reins's default sentence: ${quote(defaultRejectionText(i.toolName), 200)}`);
  out("  nothing was deleted in the last row, and the user is told it was: a rejection must be");
  out("  written into the transcript in words (reins always does; it is never empty)");
}
