/**
 * A plain-text table for the bench: the first two columns left-aligned,
 * the rest right-aligned; section rules between groups; and unit formatting.
 *
 * @module
 */

/** A row, or a section title (printed as a rule). */
export type Row = string[] | { section: string };

/** Renders `rows` under `headers`, one string per line. */
export function renderTable(headers: string[], rows: Row[], left = 2): string[] {
  const cells = rows.filter((r): r is string[] => Array.isArray(r));
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length))
  );
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  const line = (r: string[]) =>
    r.map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
      .trimEnd();
  const out = [line(headers), "-".repeat(total)];
  for (const r of rows) {
    if (Array.isArray(r)) out.push(line(headers.map((_, i) => r[i] ?? "")));
    else out.push(`-- ${r.section} `.padEnd(total, "-"));
  }
  return out;
}

/** A duration: `0.4 µs`, `85 µs`, `1.23 ms`, `1,242 ms`. */
export function dur(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms < 0.01) return `${(ms * 1000).toFixed(1)} µs`;
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 100) return `${ms.toFixed(2)} ms`;
  return `${Math.round(ms).toLocaleString("en-US")} ms`;
}

/** A ratio: `1.07x`. */
export function x(a: number, b: number): string {
  const r = a / b;
  return Number.isFinite(r) ? `${r.toFixed(2)}x` : "n/a";
}

/** An integer with separators. */
export function int(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a";
}

/** Bytes: `1,234 B`. */
export function bytes(n: number): string {
  return Number.isFinite(n) ? `${int(n)} B` : "n/a";
}

/** `name = 1.07x (target <= 1.5x) PASS` (a report, not an assertion). */
export function verdict(name: string, value: number, target: number): string {
  const shown = Number.isFinite(value) ? `${value.toFixed(2)}x` : "n/a";
  const ok = Number.isFinite(value) ? (value <= target ? "PASS" : "MISS") : "n/a";
  return `${name} = ${shown} (target <= ${target}x) ${ok}`;
}

/** `name = 67.1 (target <= 90) PASS`: an absolute figure against its ceiling. */
export function verdictAbove(name: string, value: number, ceiling: number): string {
  const shown = Number.isFinite(value) ? value.toFixed(2) : "n/a";
  const ok = Number.isFinite(value) ? (value <= ceiling ? "PASS" : "MISS") : "n/a";
  return `${name} = ${shown} (target <= ${ceiling}) ${ok}`;
}

/** What the columns and words of the bench's table mean. */
export const LEGEND: readonly string[] = [
  "Legend:",
  "  own time   = wall time of a turn minus the model call and minus the tools. A turn runs from",
  "               the start of model call k to the start of call k+1 (the last: to run() returning).",
  "               The model call is timed around Model.complete(), so request JSON, the provider",
  "               and its token counting are all excluded. reins runs with an in-memory trace sink.",
  "  provider   = time inside the in-process provider's fetch; model client = model call minus it",
  "               (reins: the OpenAI-compatible client; bare: JSON.stringify + fetch + res.json).",
  "  bare loop  = call model (one fetch), push reply, run tools, push results; nothing else.",
  "  loop only  = both loops with a model that answers at once from memory and a constant tool.",
  "  wall time  = whole run / turns, model and tools included.",
  "  persist    = the commits that append a turn's messages (reply, then tool result); bytes are",
  "               KvRunStore.lastCommitBytes (keys + values). KV own time includes those commits.",
  "  Medians over runs; figures are from this machine and vary with its load.",
];
