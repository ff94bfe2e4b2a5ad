/**
 * KV commits per durable turn, in steady state: a runaway run of 10 and of
 * 20 turns against a SQLite file, store and trace on the same `KvRunStore`,
 * every commit counted (atomics, and bare sets and deletes) by a view of the
 * real KV. The difference over the 10 extra turns leaves out what a run pays
 * once (creation, lease, first-call marker, exit save, lease release).
 *
 * @module
 */
import { join } from "node:path";
import { newRun } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { counting } from "./counting_kv.ts";
import { scriptedModel } from "../testing/scripted_model.ts";

/** Commits of a run of `turns` turns, and per extra turn between the two lengths. */
export interface CommitResult {
  /** Commits of the 10-turn run, whole. */
  run10: number;
  /** Commits of the 20-turn run, whole. */
  run20: number;
  /** (run20 - run10) / 10: commits per turn in steady state. */
  perTurn: number;
}

/**
 * Counts the commits of durable runaway runs (10 and 20 turns).
 *
 * @example
 * ```ts ignore
 * import { benchCommits } from "./commit_bench.ts";
 * console.log((await benchCommits([])).perTurn);
 * ```
 */
export async function benchCommits(tools: readonly AnyTool[]): Promise<CommitResult> {
  const dir = await Deno.makeTempDir({ prefix: "reins-bench-commits-" });
  const raw = await Deno.openKv(join(dir, "runs.sqlite"));
  try {
    const { kv, commits } = counting(raw);
    const store = new KvRunStore(kv);
    const once = async (turns: number) => {
      const before = commits.n;
      const state = newRun("count the commits", { model: "runaway" });
      await store.save(state);
      await store.acquireLease(state.runId);
      const done = await run(state, {
        model: scriptedModel("runaway"),
        tools,
        limits: { maxTurns: turns, maxBudgetUsd: 10 },
        store,
        trace: store.traceSink(),
      });
      await store.releaseLease(state.runId);
      if (done.turns !== turns) throw new Error(`commit bench: ${done.turns} turns, not ${turns}`);
      return commits.n - before;
    };
    const run10 = await once(10);
    const run20 = await once(20);
    return { run10, run20, perTurn: (run20 - run10) / 10 };
  } finally {
    raw.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
