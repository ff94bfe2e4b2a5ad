/**
 * Experiment 13: a typed answer. The run's final answer must pass a schema;
 * the first one does not, the model is told what failed and repairs it on
 * the next turn, and the repair is paid for like any turn.
 *
 * @module
 */
import { newRun, type RunState } from "../../harness/state.ts";
import type { OutputInvalidEvent, TraceEvent } from "../../harness/trace.ts";
import { addUsd } from "../../harness/cost.ts";
import { TIMEOUT_LOCATION } from "../../testing/scenarios.ts";
import { scenarioSpec } from "../../testing/scenario_catalog.ts";
import { heading, type Out, play, printTable, SYSTEM, withWorkspace } from "./common.ts";
import { usd } from "../table.ts";

/** What each turn of a typed run sent, and what became of it. */
function turnRows(s: RunState, events: readonly TraceEvent[]): (string | number)[][] {
  const replies = s.messages.filter((m) => m.role === "assistant");
  const invalid = new Map(
    events.filter((e): e is OutputInvalidEvent => e.type === "output_invalid")
      .map((e) => [e.turn, e]),
  );
  return events.flatMap((e) => {
    if (e.type !== "turn") return [];
    const m = replies[e.turn - 1];
    const call = m?.role === "assistant" ? m.tool_calls?.[0] : undefined;
    const bad = invalid.get(e.turn);
    // Shown as sent (not quoted): the JSON is the point.
    const sent = call ? `${call.function.name} ${call.function.arguments}` : m?.content ?? "";
    const verdict = call
      ? "tool call"
      : bad
      ? `invalid: ${bad.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`
      : "valid";
    return [[e.turn, sent, verdict, usd(e.turnCostUsd)]];
  });
}

/** USD of the turns after the first invalid answer: what the repairs cost. */
function repairCost(events: readonly TraceEvent[]): { usd: number; turns: number } {
  const first = events.find((e) => e.type === "output_invalid") as OutputInvalidEvent | undefined;
  let usd = 0, turns = 0;
  for (const e of events) {
    if (e.type === "turn" && first && e.turn > first.turn) {
      usd = addUsd(usd, e.turnCostUsd);
      turns++;
    }
  }
  return { usd, turns };
}

/**
 * 13. `extract` with the output schema `{ file: string, line: number }`:
 * reads errors.log, answers `line` as a string, is told, answers again;
 * then `extract-never`, which never complies, for the failure as data.
 *
 * @example
 * ```ts
 * import { typedOutputExperiment } from "./typed.ts";
 * await typedOutputExperiment(console.log);
 * ```
 */
export async function typedOutputExperiment(out: Out): Promise<void> {
  heading(out, "13. a typed answer: { file: string, line: number }, repaired once");
  const task = scenarioSpec("extract")!.task;
  const played = (scenario: string) =>
    withWorkspace((ws) =>
      play(ws, scenario, {
        state: newRun(task, { system: SYSTEM }),
        run: { output: TIMEOUT_LOCATION },
      })
    );
  const { state: s, events } = await played("extract");
  printTable(out, ["turn", "the model sent", "verdict", "cost"], turnRows(s, events));
  const repair = repairCost(events);
  out(`  ${s.status}; output: ${JSON.stringify(s.output)} (passes the schema)`);
  out(
    `  the repair: ${repair.turns} turn${repair.turns === 1 ? "" : "s"}, ${
      usd(repair.usd)
    } of the run's ${usd(s.costUsd)} ` +
      `(${Math.round((repair.usd / s.costUsd) * 100)}%), under its turn cap and budget`,
  );
  const { state: never, events: spent } = await played("extract-never");
  const turns = spent.flatMap((e) => e.type === "turn" ? [e.turnCostUsd] : []);
  const f = never.failure;
  out(
    `  extract-never: ${never.status} ${f?.kind} after ${never.outputRepairs?.length} repairs; ` +
      `issues: ${
        f?.kind === "invalid_output"
          ? f.issues.map((i) => `${i.path}: ${i.message}`).join("; ")
          : ""
      }`,
  );
  out(
    `  its cost ${usd(never.costUsd)} = ${
      turns.map(usd).join(" + ")
    } (every turn, repairs included)`,
  );
  out(`  the failure keeps the raw answer: ${f?.raw}`);
}
