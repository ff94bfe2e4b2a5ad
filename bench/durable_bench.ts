/**
 * The durable floor: what a turn costs over the in-memory turn when it is
 * made durable by the simplest store that makes the same commits (one
 * checked atomic per save: the header, the new messages and the trace events
 * held since the last save, as they are: no validation, no encoding of ours),
 * against `KvRunStore` with its KV trace.
 * All three run `runaway` (100 turns) round-robin in one process on one
 * SQLite file, so the commits' cost is measured in the same run.
 *
 * @module
 */
import { join } from "node:path";
import type { RunState } from "../harness/state.ts";
import type { RunStore } from "../harness/run_store.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { TraceEvent, TraceSink } from "../harness/trace.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { median, perTurn, progress, Recorder } from "./instrument.ts";
import { scriptedModelTimed, timedReinsRun } from "./overhead.ts";

/** Wall ms per turn of each configuration (median over runs of each run's median turn). */
export interface DurableResult {
  memory: number;
  minimal: number;
  reins: number;
  /** Commits per turn of the minimal store (its saves / turns). */
  minimalCommits: number;
  runs: number;
}

/**
 * One checked atomic per save: the header's figures, the new messages and
 * the trace events emitted since the last save, stored as they are.
 */
export class MinimalKvStore implements RunStore {
  #seen = new Map<string, { versionstamp: string | null; count: number }>();
  #held: TraceEvent[] = [];
  #seq = 0;
  commits = 0;
  constructor(private kv: Deno.Kv) {}
  /** Holds each event for the next save's commit (as `KvRunStore.traceSink` does). */
  readonly sink: TraceSink = (event) => void this.#held.push(event);
  async save(state: Readonly<RunState>): Promise<void> {
    const id = state.runId;
    const seen = this.#seen.get(id) ?? { versionstamp: null, count: 0 };
    const key = ["minimal", id];
    const op = this.kv.atomic().check({ key, versionstamp: seen.versionstamp }).set(key, {
      status: state.status,
      turns: state.turns,
      costUsd: state.costUsd,
      messageCount: state.messages.length,
    });
    for (let seq = seen.count; seq < state.messages.length; seq++) {
      op.set([...key, seq], state.messages[seq]);
    }
    for (const e of this.#held.splice(0)) op.set(["minimal_events", id, this.#seq++], e);
    const res = await op.commit();
    if (!res.ok) throw new Error(`minimal store: save("${id}") conflicted`);
    this.commits++;
    this.#seen.set(id, { versionstamp: res.versionstamp, count: state.messages.length });
  }
  load(runId: string): Promise<RunState> {
    return Promise.reject(new Error(`minimal store: cannot load "${runId}"`));
  }
}

/**
 * Runs `runaway` x100 in memory, over the minimal store, and over
 * `KvRunStore` + its trace sink, round-robin, `runs` times each (+1 warm-up).
 */
export async function benchDurable(
  tools: readonly AnyTool[],
  options: { runs?: number; stream?: boolean } = {},
): Promise<DurableResult> {
  const runs = options.runs ?? 5;
  const dir = await Deno.makeTempDir({ prefix: "reins-bench-durable-" });
  const kv = await Deno.openKv(join(dir, "runs.sqlite"));
  progress(`durable floor: runaway x100 in memory / minimal store / KvRunStore, ${runs} runs`);
  try {
    const rec = new Recorder();
    const model = scriptedModelTimed("runaway", rec, options.stream ?? true);
    const kvStore = new KvRunStore(kv);
    const figures = { memory: [] as number[], minimal: [] as number[], reins: [] as number[] };
    const commits: number[] = [];
    // The median turn of a run: a commit's occasional long stall on a busy disk (tens
    // of ms) would swing a mean more than anything the store does.
    const wall = () => median(perTurn(rec).map((t) => t.wall));
    for (let i = -1; i < runs; i++) {
      await timedReinsRun(model, tools, 100, rec);
      const memory = wall();
      const minimal = new MinimalKvStore(kv);
      const s = await timedReinsRun(model, tools, 100, rec, {
        store: minimal,
        trace: minimal.sink,
      });
      const min = wall();
      await timedReinsRun(model, tools, 100, rec, {
        store: kvStore,
        trace: kvStore.traceSink(),
      });
      if (i < 0) continue;
      figures.memory.push(memory);
      figures.minimal.push(min);
      figures.reins.push(wall());
      commits.push(minimal.commits / s.turns);
    }
    return {
      memory: median(figures.memory),
      minimal: median(figures.minimal),
      reins: median(figures.reins),
      minimalCommits: median(commits),
      runs,
    };
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
