/**
 * reins: an agent harness for Deno. The loop around a chat-completions model,
 * with five exits recorded as data, limits, tool errors as data, dedupe,
 * approval as a return, runs as plain serializable state persisted in Deno KV,
 * one AbortSignal down into tools and child runs, and a JSONL trace.
 *
 * @example
 * ```ts
 * import { createWorkspace, demoTools, newRun, run, scriptedModel } from "./mod.ts";
 * const ws = await createWorkspace();
 * const result = await run(newRun("Which file mentions a timeout?"), {
 *   model: scriptedModel("plan"),
 *   tools: demoTools(ws),
 *   limits: { maxTurns: 10, maxBudgetUsd: 0.05 },
 * });
 * console.log(result.status, result.output, result.costUsd);
 * await ws.remove();
 * ```
 *
 * @module
 */
export * from "./harness/messages.ts";
export * from "./harness/errors.ts";
export * from "./harness/state.ts";
export * from "./harness/limits.ts";
export * from "./harness/stop_conditions.ts";
export * from "./harness/exit.ts";
export * from "./harness/cost.ts";
export * from "./harness/trace.ts";
export * from "./harness/model.ts";
export * from "./harness/run_options.ts";
export * from "./harness/run_store.ts";
export { run } from "./harness/run.ts";
export * from "./harness/tokens.ts";
export * from "./harness/openai_model.ts";
export * from "./harness/tool.ts";
export * from "./tools/workspace.ts";
export * from "./tools/catalog.ts";
export * from "./tools/read_file.ts";
export * from "./tools/scan_archive.ts";
export * from "./harness/sleep.ts";
export * from "./provider/scripted_provider.ts";
export * from "./provider/scripted_model.ts";
export * from "./provider/scenarios.ts";
export * from "./kv/kv_run_store.ts";
export * from "./kv/record_error.ts";
export type { StoredEvent } from "./kv/events.ts";
export type { Lease } from "./kv/leases.ts";
export * from "./runtime/execute_run.ts";
export * from "./kv/open_kv.ts";
export * from "./kv/stop_record.ts";
export * from "./runtime/stop_tree.ts";
export * from "./runtime/continue_tree.ts";
export * from "./subagents/agent_tool.ts";
export * from "./subagents/research.ts";
export * from "./subagents/tree.ts";
export * from "./runtime/execute_tree.ts";
export * from "./server/app.ts";
export * from "./server/worker.ts";
export type { Executor } from "./runtime/executor.ts";
export { defaultMakeModel, type MakeModelOptions } from "./server/deps.ts";
