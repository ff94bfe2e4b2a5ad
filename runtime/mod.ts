/**
 * Executing stored runs of agents: a run or a whole tree under its lease,
 * checkpointed after every reply and tool result; one Stop for a tree from
 * any process; continuing a tree after a verdict; follow-ups and forks of
 * stored runs; the registry of the agents
 * a process serves (it executes only their runs, and checks a changed
 * definition against a run's pending calls); the executor and the worker
 * (sweeps, no HTTP) a server or a worker process uses; the one reader of the
 * environment.
 *
 * @example
 * ```ts
 * import { executeTree, requestStop } from "./mod.ts";
 * import { KvRunStore } from "../kv/mod.ts";
 * import { newRun } from "../mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const state = newRun("hi", { model: "echo" });
 * await store.save(state);
 * const done = await executeTree(store, kv, state.runId, { model: scriptedModel("echo") });
 * console.log(done.status, typeof requestStop); // completed function
 * kv.close();
 * ```
 *
 * @module
 */
export { executeRun, type ExecuteRunOptions, startRun } from "./execute_run.ts";
export { executeTree, type ExecuteTreeOptions } from "./execute_tree.ts";
export { DEFAULT_STOP_REASON, requestStop, watchStop, type WatchStopOptions } from "./stop_tree.ts";
export { continueTree, type ContinueTreeOptions, type Verdict } from "./continue_tree.ts";
export { createExecutor, type Executor, type ExecutorDeps } from "./executor.ts";
export type { RunSettings } from "./run_settings.ts";
export { agentRunOptions, type RunSetup } from "../subagents/agent_run_options.ts";
// The agents a process serves: it executes only their runs.
export {
  type AgentInfo,
  type AgentRegistry,
  agentRegistry,
  type AgentRegistryOptions,
  UnknownAgentError,
} from "./agent_registry.ts";
export { startWorker, type SweeperOptions, type Worker, type WorkerDeps } from "./worker.ts";
export { defaultMakeModel, type MakeModelOptions } from "./make_model.ts";
// The one reader of the environment (over `reins.jsonc`), for a process of your own.
export {
  type Env,
  type ModelFileSettings,
  type ModelSettings,
  modelSettings,
  readEnv,
  type ReinsEnv,
} from "./env.ts";
export type { McpServerConfig, ReinsConfig } from "./config.ts";
export type { ResolveModel } from "../subagents/define_agent.ts";
export { followUpRun, type FollowUpRunOptions } from "./follow_up_run.ts";
export { FORK_NOT_STARTED, type ForkResult, forkRun, type ForkRunOptions } from "./fork_run.ts";
// Forking a state in memory, and quoting its next call (what `forkRun` does to a stored run).
export { type CallQuote, type ForkOptions, forkState, quoteNextCall } from "../harness/fork.ts";
export type { ForkOrigin } from "../harness/state.ts";
// A context policy as plain data (a request, `reins.jsonc`): the summary model by name.
export type { ContextSettings } from "../harness/context_policy.ts";
