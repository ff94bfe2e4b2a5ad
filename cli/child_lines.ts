/**
 * The line protocol between a child process and the parent watching it (the
 * crash experiment, the crash tests, the soak): the child prints one JSON
 * object per line on stdout; the parent reads them as they come, so it can
 * kill the child at a chosen moment.
 *
 * @module
 */
import { isObject } from "../harness/is_object.ts";

/**
 * Prints `line` as one JSON line on stdout (child side).
 *
 * @example
 * ```ts
 * import { printLine } from "./child_lines.ts";
 * printLine({ at: "ready" }); // {"at":"ready"}
 * ```
 */
export function printLine(line: object): void {
  console.log(JSON.stringify(line));
}

/** One line a child printed: its text, and the object it holds (null when it holds none). */
export interface ChildLine {
  /** The line, without its newline. */
  text: string;
  /** The JSON object on the line, or null (a stray print, a warning). */
  value: Record<string, unknown> | null;
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The lines of a child's stdout as they arrive (parent side); ends when the
 * stream does. A last line without a newline is yielded too.
 *
 * @example
 * ```ts
 * import { readLines } from "./child_lines.ts";
 * const stdout = new Blob(['{"at":"ready"}\nhello\n']).stream();
 * for await (const line of readLines(stdout)) console.log(line.value?.at ?? line.text);
 * ```
 */
export async function* readLines(stdout: ReadableStream<Uint8Array>): AsyncGenerator<ChildLine> {
  let buffer = "";
  for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      yield { text, value: parse(text) };
    }
  }
  if (buffer) yield { text: buffer, value: parse(buffer) };
}
