/**
 * How many prompt tokens the budget plans a call with: reins counts the
 * prompt locally, and providers count differently, so the count is scaled by
 * the highest ratio of the provider's count to reins's the run has seen.
 * One formula for the loop's plan and a fork's quote.
 *
 * @module
 */
import type { RunState } from "./state.ts";

/** Margin on the learned prompt ratio (providers' counts vary a little between calls). */
const RATIO_MARGIN = 1.05;

/**
 * `tokens` (reins's count of a prompt) as the budget plans with them (see the
 * module doc): scaled by the run's `promptRatio` and a 5% margin, once it has one.
 *
 * @example
 * ```ts
 * import { promptEstimate } from "./prompt_estimate.ts";
 * import { newRun } from "./state.ts";
 * const s = newRun("hi");
 * console.log(promptEstimate(s, 100)); // 100
 * s.promptRatio = 1.2;
 * console.log(promptEstimate(s, 100)); // 126
 * ```
 */
export function promptEstimate(state: Pick<RunState, "promptRatio">, tokens: number): number {
  const ratio = state.promptRatio ? Math.max(1, state.promptRatio) * RATIO_MARGIN : 1;
  return Math.ceil(tokens * ratio);
}
