/**
 * Plain-text tables for the demo: columns aligned, numbers right-aligned,
 * thousands separators, USD with six decimals.
 *
 * @module
 */
import type { JsonValue } from "../harness/state.ts";
import { cutText } from "../harness/text.ts";

/** A table cell: numbers are formatted with thousands separators. */
export type Cell = string | number;

/** Options of {@link table}. */
export interface TableOptions {
  /** Put before every line. Default two spaces. */
  indent?: string;
  /** Spaces between columns. Default 2. */
  gap?: number;
}

/** Text that reads as a number (`1,234`, `$0.002470`, `+$0.000780`, `3.7x`, `12 ms`, `75%`). */
const NUMERIC = /^[+\-]?\$?\d[\d,]*(\.\d+)?( ?(ms|x|%|s))?$/;

/**
 * An integer with thousands separators.
 *
 * @example
 * ```ts
 * import { int } from "./table.ts";
 * console.log(int(337299)); // "337,299"
 * ```
 */
export function int(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/**
 * USD with six decimals (and thousands separators).
 *
 * @example
 * ```ts
 * import { usd } from "./table.ts";
 * console.log(usd(0.00247)); // "$0.002470"
 * ```
 */
export function usd(n: number): string {
  const text = Math.abs(n).toLocaleString("en-US", {
    minimumFractionDigits: 6,
    maximumFractionDigits: 6,
  });
  return `${n < 0 && text !== "0.000000" ? "-" : ""}$${text}`;
}

/**
 * USD with an explicit sign, for overshoot and differences.
 *
 * @example
 * ```ts
 * import { signedUsd } from "./table.ts";
 * console.log(signedUsd(0.00078), signedUsd(-0.00001)); // "+$0.000780" "-$0.000010"
 * ```
 */
export function signedUsd(n: number): string {
  const text = usd(n);
  return text.startsWith("-") ? text : `+${text}`;
}

/**
 * A ratio such as `3.7x`.
 *
 * @example
 * ```ts
 * import { ratio } from "./table.ts";
 * console.log(ratio(0.37, 0.1)); // "3.7x"
 * ```
 */
export function ratio(a: number, b: number, digits = 1): string {
  return `${(a / b).toFixed(digits)}x`;
}

/**
 * Milliseconds, rounded, with separators: `3,015 ms`.
 *
 * @example
 * ```ts
 * import { ms } from "./table.ts";
 * console.log(ms(3014.6)); // "3,015 ms"
 * ```
 */
export function ms(n: number): string {
  return `${int(n)} ms`;
}

/**
 * A string in double quotes, cut to `max` characters with an ellipsis.
 *
 * @example
 * ```ts
 * import { quote } from "./table.ts";
 * console.log(quote("hello")); // "\"hello\""
 * ```
 */
export function quote(text: JsonValue | undefined, max = 72): string {
  if (text === null || text === undefined) return "-";
  // A typed run's output is a value: quoted as its JSON.
  if (typeof text !== "string") text = JSON.stringify(text);
  const one = text.replace(/\s+/g, " ");
  return JSON.stringify(one.length > max ? cutText(one, max - 1) + "…" : one);
}

/**
 * Renders rows under headers, one string per line. A column whose cells are
 * all numbers (or read as numbers) is right-aligned; the rest left-aligned.
 * The last column is never padded, so long answers do not add trailing spaces.
 *
 * @example
 * ```ts
 * import { table } from "./table.ts";
 * for (const line of table(["cap", "cost"], [[8, "$0.006056"], [100, "$0.379300"]])) {
 *   console.log(line);
 * }
 * ```
 */
export function table(headers: string[], rows: Cell[][], options: TableOptions = {}): string[] {
  const indent = options.indent ?? "  ";
  const gap = " ".repeat(options.gap ?? 2);
  // A row's missing cell is empty (cellText), and cells past the headers are not shown.
  const columns = headers.map((h, i) => ({
    right: rows.length > 0 && rows.every((row) => readsAsNumber(row[i])),
    width: Math.max(h.length, ...rows.map((row) => cellText(row[i]).length)),
  }));
  const line = (cells: readonly Cell[]) =>
    (indent + columns.map(({ right, width }, i) => {
      const c = cellText(cells[i]);
      if (right) return c.padStart(width);
      return i === columns.length - 1 ? c : c.padEnd(width);
    }).join(gap)).trimEnd();
  return [line(headers), ...rows.map(line)];
}

function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return "";
  return typeof cell === "number" ? int(cell) : cell;
}

/** A number, or text that reads as one (an empty cell and "-" do not break a column). */
function readsAsNumber(cell: Cell | undefined): boolean {
  if (typeof cell === "number") return true;
  const text = cellText(cell);
  return text === "" || text === "-" || NUMERIC.test(text);
}
