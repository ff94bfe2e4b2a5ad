/**
 * Executing stored runs: a run or a whole tree under its lease, checkpointed
 * after every reply and tool result; one Stop for a tree from any process;
 * continuing a tree after a verdict; the executor and the worker (sweeps, no
 * HTTP) a server or `deno task worker` uses, and their default model factory.
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
export {
  type ContextSettings,
  runOptionsFor,
  type RunSettings,
  type RunSetup,
} from "./run_settings.ts";
export { startWorker, type SweeperOptions, type Worker, type WorkerDeps } from "./worker.ts";
export { defaultMakeModel, type MakeModelOptions } from "./make_model.ts";
