/**
 * reins: an agent harness for Deno. The loop around a chat-completions model,
 * with five exits recorded as data, limits, tool errors as data, dedupe,
 * approval as a return, runs as plain serializable state, one AbortSignal down
 * into tools and child runs, and a JSONL trace.
 *
 * This entry holds the loop, its state, limits, exits, cost, trace, the tool
 * contract, `defineAgent` (an agent: instructions, tools, child agents,
 * limits, options; served by `./server`'s `serve({ agents })` and `./cli`'s
 * `cli({ agents })`, run in this process by `runAgent`) and the
 * OpenAI-compatible model client. It loads no
 * server, no config parser and no store. The other entries: `./kv` (runs in
 * Deno KV), `./runtime` (executing stored runs, tree Stop, forks),
 * `./subagents` (agent tools, trees, `describeAgent`), `./server`
 * (`serve({ agents })`, the Hono app), `./cli` (`cli({ agents })`),
 * `./model` (the model contract in detail), `./testing` (the scripted
 * provider and model), `./demo` (the demo's tools), `./mcp`, `./ai-sdk` and
 * `./otel`.
 *
 * @example
 * ```ts
 * import { newRun, run } from "./mod.ts";
 * import { createWorkspace, demoTools } from "./demo/mod.ts";
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
// The loop and a run's state.
export { run, type RunResult } from "./harness/run.ts";
export {
  type JsonValue,
  newRun,
  type NewRunOptions,
  type Rejection,
  type RunState,
} from "./harness/state.ts";
export { approve, reject } from "./harness/verdict.ts";
export type { Exit, Failure, Interruption, RunStatus } from "./harness/exit.ts";
// Typed results: the output schema, and what an invalid answer reports.
export type { JsonSchema, OutputIssue, OutputSchema } from "./harness/output.ts";
export type { AnyTool, BudgetMode, RunOptions, ToolErrorPolicy } from "./harness/run_options.ts";
// Long runs: the context policy (compaction) and the summary prompt (the policy as plain data is
// in `./runtime`, what a compacted run stores in `./kv`).
export type { ContextPolicy, ContextStrategy } from "./harness/context_policy.ts";
export { SUMMARY_PROMPT } from "./harness/summary_prompt.ts";
// Limits and stop conditions.
export { DEFAULT_LIMITS, type LimitsInput, type RunLimits } from "./harness/limits.ts";
export {
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  type StopCondition,
} from "./harness/stop_conditions.ts";
// The model contract (its details, for who writes a Model, are in `./model`), the default client.
export type { Model } from "./harness/model.ts";
export type { ChatMessage, ToolCall, Usage } from "./harness/messages.ts";
export { createOpenAIModel, type OpenAIModelOptions } from "./openai/openai_model.ts";
// The trace (the event types themselves are documented in `./kv`, beside the stored trace).
export {
  fileSink,
  jsonlSink,
  memorySink,
  type TraceEvent,
  type TraceSink,
} from "./harness/trace.ts";
// Tools (`ToolContext.runChild`'s options are documented in `./subagents`; the demo's tools in
// `./demo`).
export { defineTool, type Tool, type ToolContext, type ToolSpec } from "./harness/tool.ts";
export type {
  AnySchema,
  SchemaIssue,
  StandardJsonSchema,
  StandardResult,
  ToolSchema,
} from "./harness/schema_adapter.ts";
// The in-memory store and the errors a caller catches.
export { MemoryRunStore, type RunStore } from "./harness/run_store.ts";
export { ModelError, PermanentToolError, ReinsError, RunStateError } from "./harness/errors.ts";
// Agents: defined once, served by `./server`'s `serve({ agents })` and `./cli`'s `cli({ agents })`,
// or run in this process by `runAgent` (the types of a spec's parts, and `describeAgent`, are in
// `./subagents`).
export { type Agent, type AgentSpec, defineAgent } from "./subagents/define_agent.ts";
export type { AgentOptions } from "./subagents/agent_options.ts";
export { runAgent, type RunAgentOptions } from "./subagents/run_agent.ts";
// Conversations: a follow-up to a stopped run (forks, a new run from turn N, are in `./runtime`).
export { followUp, type FollowUpOptions } from "./harness/follow_up.ts";
