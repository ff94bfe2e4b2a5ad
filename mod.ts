/**
 * reins: an agent harness for Deno. The loop around a chat-completions model,
 * with five exits recorded as data, limits, tool errors as data, dedupe,
 * approval as a return, runs as plain serializable state, one AbortSignal down
 * into tools and child runs, and a JSONL trace.
 *
 * This entry holds the loop, its state, limits, exits, cost, trace, the tool
 * contract, the demo tools and the OpenAI-compatible model client. It loads no
 * server, no config parser and no store. The other entries: `./kv` (runs in
 * Deno KV), `./runtime` (executing stored runs, tree Stop), `./subagents`,
 * `./server` (the Hono app), `./testing` (the scripted provider and model),
 * `./mcp` and `./ai-sdk`.
 *
 * @example
 * ```ts
 * import { createWorkspace, demoTools, newRun, run } from "./mod.ts";
 * const ws = await createWorkspace();
 * const model = {
 *   name: "m",
 *   complete: async () => ({
 *     message: { role: "assistant" as const, content: "Nothing to do." },
 *     usage: { prompt_tokens: 12, completion_tokens: 4 },
 *     finishReason: "stop",
 *   }),
 * };
 * const result = await run(newRun("Which file mentions a timeout?"), {
 *   model,
 *   tools: demoTools(ws),
 *   limits: { maxTurns: 10, maxBudgetUsd: 0.05 },
 * });
 * console.log(result.status, result.output, result.costUsd); // completed Nothing to do. 0.000072
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
export {
  type ContextPolicy,
  type ContextStrategy,
  DEFAULT_TRIGGER_SHARE,
  DEFAULT_WINDOW_TOKENS,
  ELIDE_TARGET,
} from "./harness/context_policy.ts";
export { type ContextState, ELIDE_MIN_CHARS } from "./harness/context_view.ts";
export { SUMMARY_PROMPT } from "./harness/summary_prompt.ts";
export { isContextLengthError, saysContextLength } from "./harness/context_errors.ts";
export * from "./openai/openai_model.ts";
export * from "./harness/tool.ts";
export * from "./tools/workspace.ts";
export * from "./tools/catalog.ts";
export * from "./tools/read_file.ts";
export * from "./tools/scan_archive.ts";
