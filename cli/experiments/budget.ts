/**
 * Experiment 3: the runaway scenario with no turn cap under three budgets,
 * in both budget modes side by side.
 *
 * @module
 */
import type { BudgetMode } from "../../harness/run_options.ts";
import type { RunState } from "../../harness/state.ts";
import { heading, type Out, play, printTable, withWorkspace } from "./common.ts";
import { signedUsd, usd } from "../table.ts";

/** The budgets of the table, USD. */
export const BUDGETS: readonly number[] = [0.01, 0.05, 0.1];

async function spend(budget: number, budgetMode: BudgetMode): Promise<RunState> {
  const { state } = await withWorkspace((ws) =>
    play(ws, "runaway", {
      run: { limits: { maxTurns: 10_000, maxBudgetUsd: budget }, budgetMode },
    })
  );
  return state;
}

/**
 * 3. `runaway` under budgets $0.010, $0.050 and $0.100 with no turn cap:
 * turns bought, spent and overshoot, `soft` (checked before each call: over by
 * up to one turn) next to `hard` (the prompt counted first and `max_tokens`
 * capped at what is left: never over).
 *
 * @example
 * ```ts
 * import { budgetExperiment } from "./budget.ts";
 * await budgetExperiment(console.log);
 * ```
 */
export async function budgetExperiment(out: Out): Promise<void> {
  heading(out, "3. runaway under a budget, no turn cap: soft vs hard budget");
  const rows = [];
  for (const budget of BUDGETS) {
    const soft = await spend(budget, "soft");
    const hard = await spend(budget, "hard");
    rows.push([
      usd(budget),
      soft.turns,
      usd(soft.costUsd),
      signedUsd(soft.costUsd - budget),
      soft.status,
      hard.turns,
      usd(hard.costUsd),
      signedUsd(hard.costUsd - budget),
      hard.status,
    ]);
  }
  printTable(out, [
    "budget",
    "soft turns",
    "soft spent",
    "soft over",
    "soft status",
    "hard turns",
    "hard spent",
    "hard over",
    "hard status",
  ], rows);
  out("  soft: checked before each call, so a run overshoots by up to one turn's cost");
  out("  hard: the prompt is counted first and max_tokens capped at what is left: never over;");
  out("  no call is made when what is left buys fewer than 32 reply tokens (minReplyTokens)");
}
