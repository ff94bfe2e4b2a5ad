/**
 * A curve in text: series of numbers drawn as marks on a grid of rows (value
 * bands) and columns (consecutive points, each column the largest of its
 * points), for the demo's prompt-tokens-per-turn chart.
 *
 * @module
 */
import { int } from "../table.ts";

/** One series of a {@link textCurve}: its mark and its points. */
export interface CurveSeries {
  /** One character drawn at each of its columns' value. */
  mark: string;
  /** The values, one per point (e.g. per turn). */
  values: readonly number[];
}

/**
 * The lines of a chart of `series` (`#` where two series meet), `rows` high, `perColumn` points a
 * column, the y axis labelled at the top and bottom.
 *
 * @example
 * ```ts
 * import { textCurve } from "./curve.ts";
 * for (const line of textCurve([{ mark: "*", values: [1, 2, 3, 4] }], { rows: 4 })) console.log(line);
 * ```
 */
export function textCurve(
  series: readonly CurveSeries[],
  { rows, perColumn = 1 }: { rows: number; perColumn?: number },
): string[] {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const width = Math.max(...series.map((s) => Math.ceil(s.values.length / perColumn)));
  const grid = Array.from({ length: rows }, () => Array(width).fill(" "));
  for (const s of series) {
    for (let col = 0; col * perColumn < s.values.length; col++) {
      const v = Math.max(...s.values.slice(col * perColumn, (col + 1) * perColumn));
      const row = Math.min(rows - 1, Math.floor((v / max) * rows));
      const cells = grid[rows - 1 - row];
      // Only a negative value or `rows` under 1 falls outside the grid.
      if (!cells) throw new RangeError(`textCurve: cannot draw ${v} in ${rows} rows`);
      cells[col] = cells[col] === " " || cells[col] === s.mark ? s.mark : "#";
    }
  }
  const label = (n: number) => int(n).padStart(7);
  return [
    ...grid.map((cells, i) =>
      `${i === 0 ? label(max) : " ".repeat(7)} |${cells.join("")}`.trimEnd()
    ),
    `${label(0)} +${"-".repeat(width)}`,
  ];
}
