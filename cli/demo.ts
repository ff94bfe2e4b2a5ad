/**
 * The demo `deno task run` prints with no arguments: the chapter's
 * experiments, replayed against the in-process scripted provider, one table
 * each, a fresh workspace per run.
 *
 * @module
 */
import { heading, type Out, play, withWorkspace } from "./experiments/common.ts";
import { demoExits } from "./experiments/exit_log.ts";
import { planExperiment, runawayCapsExperiment } from "./experiments/plan.ts";
import { budgetExperiment } from "./experiments/budget.ts";
import { compactionExperiment } from "./experiments/compaction.ts";
import { permanentErrorExperiment, toolErrorsExperiment } from "./experiments/tool_errors.ts";
import { deleteTwiceExperiment, repeatExperiment } from "./experiments/dedupe.ts";
import { approvalExperiment } from "./experiments/approval.ts";
import { crashExperiment } from "./experiments/crash.ts";
import { latencyExperiment, stopExperiment } from "./experiments/timing.ts";
import { treeExperiment } from "./experiments/tree.ts";
import { typedOutputExperiment } from "./experiments/typed.ts";
import { ms } from "./table.ts";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /**
   * Shrink the slow parts for tests: a 300 ms scan stopped at 120 ms instead
   * of 3 s stopped at 1.2 s, latencies 0 and 20 ms instead of 0, 50, 200, and
   * the tree's scans 750 ms instead of 3 s (stopped once its leaves are scanning).
   */
  quick?: boolean;
}

/**
 * Prints the demo, one line at a time, to `out`: 1. plan; 2. runaway under
 * turn caps; 2b. the same runaway with compaction (caps 50, 100, 200); 3. runaway under budgets, soft and hard; 4. tool-error policies;
 * 5. a permanent error; 6. a repeated read and dedupe; 7. the same cache on a
 * write; 8. approval, rejection, and the lie an empty rejection tells;
 * 9. a crash (SIGKILL of a child process) and resume from Deno KV;
 * 10. a slow tool with and without Stop; 11. provider latency; 12. subagents:
 * a tree under one budget, a runaway child, and one Stop for the whole tree;
 * 13. a typed answer repaired once, and one that never passes;
 * then every exit and interruption of the chapter by name, with the
 * experiments whose runs ended so.
 *
 * @example
 * ```ts
 * import { runDemo } from "./demo.ts";
 * const lines: string[] = [];
 * await runDemo((line) => lines.push(line), { quick: true });
 * console.log(lines.join("\n"));
 * ```
 */
export async function runDemo(print: Out = console.log, options: DemoOptions = {}): Promise<void> {
  const started = performance.now();
  demoExits.clear();
  const out: Out = (line) => (demoExits.follow(line), print(line));
  out("reins demo: the chapter's experiments against the in-process scripted provider");
  out("prices: $2.00 / M input tokens, $12.00 / M output tokens; tokens counted with o200k_base");
  // Load the token encoder once, so the first table's ms is not charged for it.
  const warm = performance.now();
  await withWorkspace((ws) => play(ws, "plan"));
  out(`(token encoder loaded and warmed up in ${ms(performance.now() - warm)})`);
  await planExperiment(out);
  await runawayCapsExperiment(out);
  await compactionExperiment(out);
  await budgetExperiment(out);
  await toolErrorsExperiment(out);
  await permanentErrorExperiment(out);
  await repeatExperiment(out);
  await deleteTwiceExperiment(out);
  await approvalExperiment(out);
  await crashExperiment(out, options);
  await stopExperiment(out, options);
  await latencyExperiment(out, options);
  await treeExperiment(out, options);
  await typedOutputExperiment(out);
  heading(out, "the five exits and four interruptions, and the experiments whose runs ended so");
  for (const line of demoExits.lines()) out(line);
  out("");
  out(`demo finished in ${ms(performance.now() - started)}`);
}
