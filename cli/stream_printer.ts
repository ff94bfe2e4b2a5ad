/**
 * The CLI's live output: the progress line of each trace event, and the
 * model's words as they stream. The root's words stream as they come, on a
 * line of their own (`  root> ...`). A child's words are labelled as its
 * progress lines are (`  [research:call_0_1] ...`) and printed a whole line
 * at a time (or, for a long line, up to its last whole word), so children
 * streaming side by side never cut each other's words. When a retried call
 * voids the words shown, the printer says `↺ retrying` and the reply starts
 * on a new line.
 *
 * @module
 */
import type { TraceEvent, TraceSink } from "../harness/trace.ts";
import { nodeLabels } from "./node_labels.ts";
import { progressPrinter } from "./summary.ts";

/** A child's words are flushed at a newline, or at a word break past this many characters. */
export const CHILD_LINE_CHARS = 100;

/** The whole lines (and long lines' whole words) of `buffer`, and what stays buffered. */
function completeLines(buffer: string): { lines: string[]; rest: string } {
  const lines = buffer.split("\n");
  let rest = lines.pop()!;
  while (rest.length > CHILD_LINE_CHARS) {
    const cut = rest.lastIndexOf(" ", CHILD_LINE_CHARS);
    if (cut <= 0) break; // one very long word: wait for its end
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  return { lines, rest };
}

/**
 * A sink printing progress lines and streamed text to `write` (no newline is
 * added: the printer ends a streamed line before anything else is printed).
 *
 * @example
 * ```ts
 * import { streamPrinter } from "./stream_printer.ts";
 * let out = "";
 * const sink = streamPrinter("r1", performance.now(), (s) => out += s);
 * for (const delta of ["Hel", "lo."]) sink({ type: "text_delta", runId: "r1", at: "", delta });
 * sink({ type: "run_stopped", runId: "r1", at: "", status: "completed", reason: "done",
 *   interruption: null, turns: 1, costUsd: 0 });
 * console.log(out); // "  root> Hello.\n"
 * ```
 */
export function streamPrinter(
  rootId: string,
  t0: number,
  write: (text: string) => void,
): TraceSink {
  let open = false; // the root's streamed line is open
  const labels = nodeLabels(rootId);
  const progress = progressPrinter(rootId, t0, labels); // progress lines name their node
  const pending = new Map<string, string>(); // a child's words not printed yet
  const close = () => {
    if (open) write("\n");
    open = false;
  };
  const lines = (runId: string, texts: string[]) => {
    if (!texts.length) return;
    close();
    for (const t of texts) write(`  ${labels.label(runId)}${t}\n`);
  };
  const flush = (runId: string) => {
    const rest = pending.get(runId);
    pending.delete(runId);
    if (rest) lines(runId, [rest]);
  };
  const root = (e: Extract<TraceEvent, { type: "text_delta" }>) => {
    if (e.reset) {
      write(`${open ? " " : "  root> "}↺ retrying\n`);
      open = false;
      if (!e.delta) return;
    }
    if (!open) (write("  root> "), open = true);
    write(e.delta.replaceAll("\n", "\n  root> ")); // a newline continues under the label
  };
  const child = (e: Extract<TraceEvent, { type: "text_delta" }>) => {
    if (e.reset) {
      pending.delete(e.runId); // what was not printed yet is void too
      lines(e.runId, ["↺ retrying"]);
    }
    const { lines: done, rest } = completeLines((pending.get(e.runId) ?? "") + e.delta);
    pending.set(e.runId, rest);
    lines(e.runId, done);
  };
  return (e: TraceEvent) => {
    labels.see(e);
    if (e.type === "text_delta") return labels.label(e.runId) ? child(e) : root(e);
    // A call's words end before its turn is counted; a stopped run has no more.
    if (e.type === "turn" || e.type === "run_stopped") flush(e.runId);
    close();
    const line = progress(e);
    if (line) write(line + "\n");
  };
}
