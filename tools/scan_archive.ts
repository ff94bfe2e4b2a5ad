/**
 * `scan_archive`: a deliberately slow, read-only tool for demonstrating
 * progress events and a Stop mid-call.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type Tool } from "../harness/tool.ts";
import { sleep } from "../harness/sleep.ts";
import type { Workspace } from "./workspace.ts";

/** Arguments of `scan_archive`: none. */
export type ScanArchiveArgs = Record<string, never>;

/** Options of {@link scanArchiveTool}. */
export interface ScanArchiveOptions {
  /** Simulated files to scan. Default 1200. */
  files?: number | undefined;
  /** Total time the scan takes, in ms. Default 3000. */
  ms?: number | undefined;
  /** Report progress after every this many files. Default 200. */
  every?: number | undefined;
}

// One schema for every instance: a server builds the tools of each run it executes.
const PARAMETERS = z.object({});

/**
 * The `scan_archive` tool: "scans" `files` simulated archive files in about
 * `ms` milliseconds, calling `ctx.progress("scanned 200 of 1200 files", 1/6)`
 * every `every` files. When `ctx.signal` aborts it rejects at once with the
 * signal's reason. With the defaults it returns
 * `scanned 1200 files; 3 mention a timeout: archive/0137.log, archive/0537.log, archive/0937.log`.
 *
 * @example
 * ```ts
 * import { createWorkspace } from "./workspace.ts";
 * import { standaloneContext } from "../harness/tool.ts";
 * import { scanArchiveTool } from "./scan_archive.ts";
 * const ws = await createWorkspace();
 * const ctx = standaloneContext({ progress: (label) => console.log(label) });
 * console.log(await scanArchiveTool(ws, { files: 400, ms: 20 }).run({}, ctx));
 * await ws.remove();
 * ```
 */
export function scanArchiveTool(
  _ws: Workspace,
  options: ScanArchiveOptions = {},
): Tool<ScanArchiveArgs> {
  const files = options.files ?? 1200;
  const ms = options.ms ?? 3000;
  const every = options.every ?? 200;
  if (!Number.isInteger(files) || files < 1) {
    throw new RangeError(`scanArchiveTool: files must be a positive integer, got ${files}`);
  }
  if (!Number.isInteger(every) || every < 1) {
    throw new RangeError(`scanArchiveTool: every must be a positive integer, got ${every}`);
  }
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`scanArchiveTool: ms must be a non-negative number, got ${ms}`);
  }
  return defineTool<ScanArchiveArgs>({
    name: "scan_archive",
    description: `Scans the log archive (${files} files) for timeouts. Slow: takes about ${
      Math.round(ms / 1000)
    } s.`,
    parameters: PARAMETERS,
    readOnly: true,
    async run(_args, ctx) {
      ctx.signal.throwIfAborted();
      const hits: string[] = [];
      const started = performance.now();
      for (let done = 0; done < files;) {
        const next = Math.min(files, done + every);
        for (let i = done + 1; i <= next; i++) {
          if (i % 400 === 137) hits.push(`archive/${String(i).padStart(4, "0")}.log`);
        }
        done = next;
        // Pace against the clock so timer drift does not add up.
        await sleep(started + (ms * done) / files - performance.now(), ctx.signal);
        ctx.progress(`scanned ${done} of ${files} files`, done / files);
      }
      const found = hits.length === 1 ? "1 mentions a timeout" : `${hits.length} mention a timeout`;
      return `scanned ${files} files; ${found}${hits.length ? `: ${hits.join(", ")}` : ""}`;
    },
  });
}
