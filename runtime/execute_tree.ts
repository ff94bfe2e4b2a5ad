/**
 * Executing a stored run of a tree under the tree's Stop: `executeRun` (lease,
 * KV checkpoints, KV trace) with its signal linked to `watchStop` on the
 * tree's root, so a `requestStop` from any process stops it, and its
 * children, which inherit the signal.
 *
 * @module
 */
import type { RunState } from "../harness/state.ts";
import { executeRun, type ExecuteRunOptions } from "./execute_run.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { readStop } from "../kv/stop_record.ts";
import { treeSettled } from "../subagents/agent_tool.ts";
import { watchStop } from "./stop_tree.ts";

/** Options of {@link executeTree}: `executeRun`'s, plus the Stop poll interval. */
export interface ExecuteTreeOptions extends ExecuteRunOptions {
  /** How often the Stop record is polled while the run executes, in ms (default 100). */
  pollMs?: number | undefined;
}

/**
 * Executes stored run `idOrState` (usually a tree's root; a state as
 * `executeRun` takes it) while watching its tree's Stop; a Stop recorded
 * before it starts makes it stop `interrupted/cancelled` before any model
 * call. Resolves once the run and every descendant it started in this
 * process have stopped.
 *
 * @example
 * ```ts
 * import { executeTree } from "./execute_tree.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { requestStop } from "./stop_tree.ts";
 * import { newRun } from "../mod.ts";
 * import { scriptedModel } from "../testing/mod.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * await store.save(s);
 * await requestStop(kv, s.runId, "not today");
 * const done = await executeTree(store, kv, s.runId, { model: scriptedModel("echo") });
 * console.log(done.status, done.interruption); // interrupted { type: "cancelled", reason: "not today" }
 * kv.close();
 * ```
 */
export async function executeTree(
  store: KvRunStore,
  kv: Deno.Kv,
  idOrState: string | RunState,
  options: ExecuteTreeOptions,
): Promise<RunState> {
  const { pollMs, ...rest } = options;
  const { rootId } = typeof idOrState === "string" ? await store.summary(idOrState) : idOrState;
  const controller = new AbortController();
  const dispose = watchStop(kv, rootId, controller, { pollMs });
  try {
    const request = await readStop(kv, rootId);
    if (request) controller.abort(request.reason);
    const signal = options.signal
      ? AbortSignal.any([options.signal, controller.signal])
      : controller.signal;
    // The tree settles under the lease: a child still saving its last checkpoint
    // must be done before the run is handed over (or marked running again).
    const settle = async (state: RunState) => {
      await treeSettled(rootId);
      return rest.settle ? await rest.settle(state) : state;
    };
    return await executeRun(store, idOrState, { ...rest, signal, settle });
  } finally {
    await treeSettled(rootId);
    await dispose();
  }
}
