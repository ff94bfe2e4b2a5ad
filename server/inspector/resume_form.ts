/**
 * Resume for a tree stopped by its budget or its turn cap: a field to raise
 * the limit that stopped it (as `POST /runs/:id/resume { limits }` does),
 * filled with a suggestion, and the button.
 *
 * @module
 */
import { usdPair } from "../../harness/spend_text.ts";
import { type Html, html } from "./html.ts";
import type { RunView } from "../views.ts";

/** The API's upper bounds on limits (see `LimitsSchema`). */
const MAX_TURNS = 1000;
const MAX_BUDGET_USD = 1000;

/** Which limit stopped the root, if one did. */
function stoppedBy(root: RunView): "budget" | "turns" | null {
  const i = root.interruption?.type;
  if (root.status === "budget_exceeded" || i === "max_budget") return "budget";
  if (root.status === "max_turns_exceeded" || i === "max_turns") return "turns";
  return null;
}

/** Twice the budget, and at least enough to cover what was spent: rounded up to 4 decimals. */
function suggestedBudget(root: RunView): number {
  const wanted = Math.max(root.limits.maxBudgetUsd * 2, root.costUsd * 1.5, 0.0001);
  return Math.min(MAX_BUDGET_USD, Math.ceil(wanted * 1e4) / 1e4);
}

/**
 * The Resume form for a root stopped by a limit, or null for any other root.
 *
 * @example
 * ```ts
 * import { renderRaiseForm } from "./resume_form.ts";
 * import { newRun } from "../../harness/state.ts";
 * import { runView } from "../views.ts";
 * const s = { ...newRun("x", { limits: { maxTurns: 3 } }), status: "max_turns_exceeded" as const, turns: 3 };
 * console.log(String(renderRaiseForm(runView(s, null))).includes('name="maxTurns"')); // true
 * ```
 */
export function renderRaiseForm(root: RunView): Html | null {
  const by = stoppedBy(root);
  if (!by) return null;
  const [spent, budget] = usdPair(root.costUsd, root.limits.maxBudgetUsd);
  const field = by === "budget"
    ? html`<label>New budget (USD) <input name="maxBudgetUsd" type="number" inputmode="decimal"
        step="any" min="${root.costUsd}" max="${MAX_BUDGET_USD}"
        value="${suggestedBudget(root)}" required></label>`
    : html`<label>New turn cap <input name="maxTurns" type="number" inputmode="numeric"
        step="1" min="${root.turns + 1}" max="${MAX_TURNS}"
        value="${Math.min(MAX_TURNS, Math.max(root.turns + 1, root.limits.maxTurns * 2))}"
        required></label>`;
  const words = by === "budget"
    ? html`It spent ${spent} of its ${budget} budget.`
    : html`It used ${root.turns} of its ${root.limits.maxTurns} turns.`;
  return html`
    <form class="resume raise" data-action="resume" data-root-id="${root.runId}">
      <h2>${by === "budget" ? "Stopped by its budget" : "Stopped by its turn cap"}</h2>
      <p>${words} Raise the limit to let the tree go on from where it stopped.</p>
      <div class="row">${field}<button type="submit">Resume with this ${by === "budget"
        ? "budget"
        : "cap"}</button></div>
    </form>
  `;
}
