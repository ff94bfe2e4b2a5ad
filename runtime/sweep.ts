/**
 * Finding the work no one is doing: the tree roots stored `running` whose
 * lease is absent, released, lapsed or held by a process of this machine
 * that is gone (a new run, a continued one, one whose
 * executor was evicted or killed), and the roots an older version left
 * `interrupted/cancelled` on shutdown. Each is handed to the executor, which
 * claims it through its lease (an atomic check), so any number of sweeps in
 * any number of processes may find the same run: one executes it.
 *
 * @module
 */
import { RunConflictError } from "../harness/errors.ts";
import type { KvRunStore, RunSummary } from "../kv/kv_run_store.ts";
import { readStop } from "../kv/stop_record.ts";
import { markRunning } from "./continue_tree.ts";
import { liveLease } from "./holder_gone.ts";
import { EVICTION_REASON, type Executor, SHUTDOWN_REASON } from "./executor.ts";

/** Options of {@link sweepRunnable}. */
export interface SweepOptions {
  /** Also look for roots stopped by a shutdown (older versions) or an unfinished eviction. */
  full?: boolean;
  /** At most this many runs of each status are looked at (default 1000). */
  limit?: number;
}

/** Whether a stored run was stopped by a process going away, not by a person. */
function stoppedByShutdown(s: RunSummary): boolean {
  const i = s.interruption;
  return s.status === "interrupted" && i?.type === "cancelled" &&
    (i.reason === SHUTDOWN_REASON || i.reason === EVICTION_REASON);
}

/**
 * One sweep: starts (with `executor.spawn`) every runnable root of `store`
 * and resolves with their ids. With `full`, roots stopped by a shutdown are
 * marked `running` first (unless a Stop of their tree is recorded). Does
 * nothing once the executor is stopped.
 *
 * @example
 * ```ts
 * import { sweepRunnable } from "./sweep.ts";
 * import { createExecutor } from "./executor.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * import { agentRegistry } from "./agent_registry.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const root = await Deno.makeTempDir();
 * const parrot = defineAgent({ name: "parrot", instructions: "", tools: [] });
 * const executor = createExecutor({
 *   kv,
 *   freshStore: () => new KvRunStore(kv),
 *   agents: agentRegistry([parrot]),
 *   makeModel: (name) => scriptedModel(name),
 *   workspaceRoot: root,
 * });
 * const s = newRun("hi", { model: "echo", agent: "parrot" });
 * await store.save(s); // left `running` with no lease, as by a killed process
 * console.log((await sweepRunnable(executor, store, kv)).length); // 1
 * await executor.idle();
 * console.log((await store.load(s.runId)).status); // completed
 * await Deno.remove(root, { recursive: true });
 * kv.close();
 * ```
 */
export async function sweepRunnable(
  executor: Executor,
  store: KvRunStore,
  kv: Deno.Kv,
  options: SweepOptions = {},
): Promise<string[]> {
  if (executor.stopped) return [];
  const limit = options.limit ?? 1000;
  const roots = (await store.list({ status: "running", limit }))
    .filter((s) => s.parentId === null).map((s) => s.runId);
  if (options.full) {
    for (const s of await store.list({ status: "interrupted", limit })) {
      if (s.parentId !== null || !stoppedByShutdown(s)) continue;
      if (await readStop(kv, s.runId)) continue; // a person's Stop: leave it stopped
      try {
        await markRunning(store, s.runId);
      } catch (e) {
        if (e instanceof RunConflictError) continue; // another sweep took it
        throw e;
      }
      roots.push(s.runId);
    }
  }
  // A lease whose holder died on this machine (a killed server, a killed CLI) is free now.
  const held = await Promise.all(roots.map((id) => liveLease(store, id)));
  const free = roots.filter((_, i) => held[i] === null);
  if (executor.stopped) return [];
  for (const id of free) await executor.spawn(id);
  return free;
}
