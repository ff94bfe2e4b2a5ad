/**
 * Experiments 4 and 5: what a failed tool call puts in the transcript, and
 * an error no message can fix.
 *
 * @module
 */
import type { ToolErrorPolicy } from "../../harness/run_options.ts";
import { heading, type Out, play, printTable, withWorkspace } from "./common.ts";
import { quote, ratio, usd } from "../table.ts";

/**
 * 4. `recover` (guesses a file that does not exist) under the three tool-error
 * policies: `describe` (the error's words), `generic` (just `Error`), `fatal`.
 *
 * @example
 * ```ts
 * import { toolErrorsExperiment } from "./tool_errors.ts";
 * await toolErrorsExperiment(console.log);
 * ```
 */
export async function toolErrorsExperiment(out: Out): Promise<void> {
  heading(
    out,
    "4. one tool error, three policies (recover reads timeout.log, which does not exist)",
  );
  const policies: [ToolErrorPolicy, string][] = [
    ["describe", "Error: <the message>"],
    ["generic", "Error"],
    ["fatal", "(run stops)"],
  ];
  const rows = [];
  const cost = new Map<string, number>();
  for (const [policy, wrote] of policies) {
    const { state: s } = await withWorkspace((ws) =>
      play(ws, "recover", { run: { toolErrors: policy } })
    );
    cost.set(String(policy), s.costUsd);
    rows.push([String(policy), wrote, s.turns, usd(s.costUsd), s.status, quote(s.output ?? "")]);
  }
  printTable(out, ["policy", "model reads", "turns", "cost", "status", "answer"], rows);
  const d = cost.get("describe")!;
  out(
    `  describe costs ${ratio(d, cost.get("fatal")!)} fatal and ${
      ratio(d, cost.get("generic")!)
    } generic, and is the only one that answers`,
  );
  out("  the difference between generic and describe is a sentence written for the reader");
}

/**
 * 5. `forbidden` (reads a file the process may not open, forever) with and
 * without the stop on a permanent error, cap 12.
 *
 * @example
 * ```ts
 * import { permanentErrorExperiment } from "./tool_errors.ts";
 * await permanentErrorExperiment(console.log);
 * ```
 */
export async function permanentErrorExperiment(out: Out): Promise<void> {
  heading(out, "5. a permanent error (forbidden reads /etc/shadow), cap 12");
  const rows = [];
  let loose = 0;
  for (const stopOnPermanentError of [false, true]) {
    const { state: s } = await withWorkspace((ws) =>
      play(ws, "forbidden", { run: { limits: { maxTurns: 12 }, stopOnPermanentError } })
    );
    if (!stopOnPermanentError) loose = s.costUsd;
    rows.push([
      stopOnPermanentError ? "stop on permanent error" : "retry (no stop)",
      s.turns,
      s.toolRuns,
      s.usage.prompt_tokens,
      usd(s.costUsd),
      s.status,
      quote(s.stopReason, 90),
    ]);
  }
  printTable(out, ["policy", "turns", "tool runs", "in", "cost", "status", "reason"], rows);
  const { state: recovered } = await withWorkspace((ws) => play(ws, "recover"));
  out(
    `  without the stop: ${ratio(loose, recovered.costUsd)} the cost of recover's fixable error, ` +
      `and no answer at the end`,
  );
}
