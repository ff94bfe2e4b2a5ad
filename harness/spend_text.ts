/**
 * The spend of a run against its budget in words, with enough digits that an
 * overshoot always shows: "spent $0.010780 of $0.010000 (108%)".
 *
 * @module
 */

/**
 * Two USD amounts with the same number of decimals, at least 6 and as many
 * more (up to 12) as it takes for different amounts to print differently.
 *
 * @example
 * ```ts
 * import { usdPair } from "./spend_text.ts";
 * console.log(usdPair(0.0100004, 0.01)); // [ "$0.0100004", "$0.0100000" ]
 * ```
 */
export function usdPair(a: number, b: number): [string, string] {
  let digits = 6;
  while (digits < 12 && a !== b && a.toFixed(digits) === b.toFixed(digits)) digits++;
  return [`$${a.toFixed(digits)}`, `$${b.toFixed(digits)}`];
}

/**
 * `spent` as a percentage of `budget`: whole percents, with decimals when
 * rounding would hide which side of 100% it is on, or that anything was spent.
 *
 * @example
 * ```ts
 * import { percentOf } from "./spend_text.ts";
 * console.log(percentOf(0.01078, 0.01), percentOf(0.0100004, 0.01)); // 108% 100.004%
 * ```
 */
export function percentOf(spent: number, budget: number): string {
  if (!(budget > 0)) return spent > 0 ? "over a zero budget" : "0%";
  const p = (spent / budget) * 100;
  let digits = 0;
  // Rounding must not say 100% when it is not, nor 0% when something was spent.
  const hides = (d: number) =>
    (spent !== budget && Number(p.toFixed(d)) === 100) || (spent > 0 && Number(p.toFixed(d)) === 0);
  while (digits < 6 && hides(digits)) digits++;
  return `${p.toFixed(digits)}%`;
}

/**
 * "spent $0.010780 of $0.010000 (108%)".
 *
 * @example
 * ```ts
 * import { spentText } from "./spend_text.ts";
 * console.log(spentText(0.01078, 0.01)); // spent $0.010780 of $0.010000 (108%)
 * ```
 */
export function spentText(spent: number, budget: number): string {
  const [s, b] = usdPair(spent, budget);
  return `spent ${s} of ${b} (${percentOf(spent, budget)})`;
}
