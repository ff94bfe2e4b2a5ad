/**
 * Experiments 10 and 11: a slow tool with and without a Stop, and the same
 * plan at three provider latencies.
 *
 * @module
 */
import { exitName } from "./exit_log.ts";
import {
  type ExperimentOptions,
  heading,
  type Out,
  play,
  printTable,
  withWorkspace,
} from "./common.ts";
import { ms, quote } from "../table.ts";

/**
 * 10. `slow` (scan_archive, about 3 s) with no Stop, then with the
 * user pressing Stop at 1.2 s (`AbortController.abort("user pressed Stop")`).
 * Progress lines are printed as the tool reports them. `quick` shrinks the
 * scan to 300 ms and the Stop to 120 ms.
 *
 * @example
 * ```ts
 * import { stopExperiment } from "./timing.ts";
 * await stopExperiment(console.log, { quick: true });
 * ```
 */
export async function stopExperiment(out: Out, options: ExperimentOptions = {}): Promise<void> {
  const scanMs = options.quick ? 300 : 3_000;
  const stopAt = options.quick ? 120 : 1_200;
  heading(
    out,
    `10. a slow tool (scan_archive, ~${ms(scanMs)}): no Stop, then Stop at ${ms(stopAt)}`,
  );
  const rows = [];
  for (const stop of [false, true]) {
    out(stop ? `  -- user presses Stop at ${ms(stopAt)}` : "  -- no cancellation");
    const controller = new AbortController();
    let abortedAt = 0;
    const timer = stop
      ? setTimeout(() => {
        abortedAt = performance.now();
        controller.abort("user pressed Stop");
      }, stopAt)
      : undefined;
    try {
      const p = await withWorkspace((ws) =>
        play(ws, "slow", {
          run: { signal: controller.signal },
          tools: { scan: { ms: scanMs } },
          progress: out,
        })
      );
      const reason = p.state.interruption?.type === "cancelled" ? p.state.interruption.reason : "";
      rows.push([
        stop ? `Stop at ${ms(stopAt)}` : "no cancellation",
        ms(p.ms),
        abortedAt ? `${(p.endedAt - abortedAt).toFixed(1)} ms` : "-",
        exitName(p.state),
        reason ? quote(reason) : quote(p.state.output, 60),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
  printTable(out, ["run", "stopped after", "Stop -> stopped", "status", "reason / answer"], rows);
  out("  the signal reaches the sleep inside the tool, so Stop lands within milliseconds");
}

/**
 * 11. `plan` at provider latencies 0, 50 and 200 ms: wall time, time in the
 * model (the turns' `ms`), time in the tools, and the harness's own overhead
 * (wall - model - tools). `quick` uses 0 and 20 ms.
 *
 * @example
 * ```ts
 * import { latencyExperiment } from "./timing.ts";
 * await latencyExperiment(console.log, { quick: true });
 * ```
 */
export async function latencyExperiment(out: Out, options: ExperimentOptions = {}): Promise<void> {
  heading(out, "11. the same plan at three provider latencies");
  const latencies = options.quick ? [0, 20] : [0, 50, 200];
  // Warm up (token encoder, JIT) so the first row is not charged for it.
  await withWorkspace((ws) => play(ws, "plan"));
  const rows = [];
  for (const latencyMs of latencies) {
    const p = await withWorkspace((ws) => play(ws, "plan", { model: { latencyMs } }));
    let model = 0, tools = 0;
    for (const e of p.events) {
      if (e.type === "turn") model += e.ms;
      if (e.type === "tool_result") tools += e.ms;
    }
    const overhead = p.ms - model - tools;
    rows.push([
      ms(latencyMs),
      p.state.turns,
      p.state.status,
      ms(p.ms),
      ms(model),
      ms(tools),
      ms(overhead),
      `${(overhead / p.state.turns).toFixed(1)} ms`,
    ]);
  }
  printTable(out, [
    "latency",
    "turns",
    "status",
    "wall",
    "model",
    "tools",
    "harness",
    "harness/turn",
  ], rows);
  out("  the wall clock is turns x latency; the harness's own share stays flat");
}
