/**
 * `deno task run --stop ID`: records a Stop for the tree of run ID when it is
 * executing; a tree that is not says so (its status) and records nothing.
 *
 * @module
 */
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { requestStop } from "../runtime/stop_tree.ts";

/**
 * Stops the tree of run `runId` (from any process); the line to print.
 * `RunNotFoundError` for an unknown run.
 *
 * @example
 * ```ts
 * import { stopCommand } from "./stop_command.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = { ...newRun("hi"), status: "completed" as const };
 * await store.save(s);
 * console.log((await stopCommand(store, kv, s.runId, "enough")).startsWith("nothing to stop"));
 * // true
 * kv.close();
 * ```
 */
export async function stopCommand(
  store: KvRunStore,
  kv: Deno.Kv,
  runId: string,
  reason: string,
): Promise<string> {
  const { rootId } = await store.summary(runId);
  const root = await store.summary(rootId);
  if (root.status !== "running") {
    const tree = rootId === runId ? `run ${runId}` : `the tree of run ${runId} (root ${rootId})`;
    const why = root.interruption ? `${root.status}/${root.interruption.type}` : root.status;
    return `nothing to stop: ${tree} is ${why}, not executing`;
  }
  const recorded = await requestStop(kv, runId, reason);
  // A Stop asked for before (by the inspector, another CLI) wins: say whose reason stands.
  const note = recorded.reason === reason ? "" : " (a Stop was requested before yours)";
  return `stop requested for the tree of run ${runId} (root ${rootId}): ${recorded.reason}${note}`;
}
