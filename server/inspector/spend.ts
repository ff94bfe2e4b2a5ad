/**
 * What a run's budget picture is drawn from: every model call of the run and
 * of its subagents, in time order, with what it cost, read from their
 * stored `turn` events.
 *
 * @module
 */
import type { KvRunStore } from "../../kv/kv_run_store.ts";
import type { TreeNode } from "../../subagents/tree.ts";

/** One model call of the run or of a subagent. */
export interface SpendCall {
  /** The run that made it. */
  runId: string;
  /** Its turn in that run. */
  turn: number;
  /** What it cost. */
  costUsd: number;
  /** When it was counted (ISO). */
  at: string;
}

/** A run's spend against its budget, call by call. */
export interface Spend {
  /** The run's budget (its subagents spend from it). */
  budgetUsd: number;
  /** What the run and its subagents spent. */
  spentUsd: number;
  /** The calls, oldest first. */
  calls: SpendCall[];
}

/** Whether `id` is `runId` or one of its descendants. */
const inSubtree = (id: string, runId: string) => id === runId || id.startsWith(`${runId}.`);

/**
 * The spend of run `run` from the stored events of the nodes of its subtree.
 *
 * @example
 * ```ts
 * import { loadSpend } from "./spend.ts";
 * import { KvRunStore } from "../../kv/kv_run_store.ts";
 * import { newRun } from "../../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const s = newRun("hi", { limits: { maxBudgetUsd: 0.01 } });
 * const spend = await loadSpend(new KvRunStore(kv), s, []);
 * console.log(spend); // { budgetUsd: 0.01, spentUsd: 0, calls: [] }
 * kv.close();
 * ```
 */
export async function loadSpend(
  store: KvRunStore,
  run: { runId: string; costUsd: number; limits: { maxBudgetUsd: number } },
  nodes: readonly Pick<TreeNode, "runId">[],
): Promise<Spend> {
  const ids = nodes.map((n) => n.runId).filter((id) => inSubtree(id, run.runId));
  if (!ids.includes(run.runId)) ids.unshift(run.runId);
  const perRun = await Promise.all(
    ids.map(async (id) =>
      (await store.events(id)).flatMap(({ event: e }) =>
        e.type === "turn" ? [{ runId: id, turn: e.turn, costUsd: e.turnCostUsd, at: e.at }] : []
      )
    ),
  );
  // Stable: calls counted in the same millisecond keep their run's order.
  const calls = perRun.flat().sort((a, b) => a.at < b.at ? -1 : a.at > b.at ? 1 : 0);
  return { budgetUsd: run.limits.maxBudgetUsd, spentUsd: run.costUsd, calls };
}
