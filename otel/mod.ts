/**
 * OpenTelemetry for reins: runs, their children, model calls and tool calls as
 * GenAI spans and metrics through `@opentelemetry/api` (no SDK inside). Give
 * `observe: openTelemetry()` to `run()`; the runtime (server, worker) does it
 * for every run it executes. With Deno, `OTEL_DENO=true` exports them over OTLP.
 *
 * @example
 * ```ts
 * import { openTelemetry } from "./mod.ts";
 * import { newRun, run } from "../mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * const done = await run(newRun("hi"), { model: scriptedModel("echo"), observe: openTelemetry() });
 * console.log(done.status); // completed
 * ```
 *
 * @module
 */
export { DEFAULT_AGENT_NAME, openTelemetry, type OpenTelemetryOptions } from "./open_telemetry.ts";
export { CAPTURE_CONTENT_ENV } from "./message_content.ts";
// What `openTelemetry()` returns: `RunOptions.observe` brackets each execution with it.
export type { RunObserver } from "../harness/run_options.ts";
