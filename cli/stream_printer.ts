/**
 * The CLI's live output: the progress line of each trace event, and the
 * model's words as they stream, on a line of their own labelled with the node
 * (`root`, or the child run's short id). When a retried call voids the words
 * shown, the line ends with `↺ retrying` and the reply starts on a new one.
 *
 * @module
 */
import type { TraceEvent, TraceSink } from "../harness/trace.ts";
import { progressPrinter } from "./summary.ts";

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
  let open: string | null = null; // the run whose streamed line is open
  const progress = progressPrinter(rootId, t0); // progress lines name their node
  // As the inspector names nodes: the child's id after the root's.
  const label = (id: string) => {
    if (id === rootId) return "root";
    const dot = id.indexOf(".");
    return dot > 0 ? id.slice(dot + 1) : id.slice(0, 8);
  };
  const close = () => {
    if (open !== null) write("\n");
    open = null;
  };
  return (e: TraceEvent) => {
    if (e.type === "text_delta") {
      if (e.reset) {
        // The words shown were from an attempt that failed: say so, start over.
        if (open !== e.runId) close();
        write(`${open === e.runId ? " " : `  ${label(e.runId)}> `}↺ retrying\n`);
        open = null;
        if (!e.delta) return;
      }
      if (open !== e.runId) {
        close();
        write(`  ${label(e.runId)}> `);
        open = e.runId;
      }
      // A newline in the text continues under the same label.
      write(e.delta.replaceAll("\n", `\n  ${label(e.runId)}> `));
      return;
    }
    close();
    const line = progress(e);
    if (line) write(line + "\n");
  };
}
