/**
 * Persistence in Deno KV on a SQLite file (a temp dir, removed afterwards):
 * bytes and ms to persist turn 1 and turn 100 of `runaway` (also with its
 * prompt compacted: a summary in the header from turn ~50 on), and the
 * harness's own time per turn with the KV store on (the store's commits are
 * the harness's work, so they count as its own time).
 *
 * Persisting turn k = the saves that appended turn k's messages: the model's
 * reply (committed before its tool runs) and the tool's result. The exit save
 * (header only) is reported apart, and taken out of turn 100's own time.
 *
 * @module
 */
import { join } from "node:path";
import type { RunState } from "../harness/state.ts";
import type { RunStore } from "../harness/run_store.ts";
import type { AnyTool, RunOptions } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { median, perTurn, progress, Recorder, totals, type TurnTiming } from "./instrument.ts";
import { scriptedModelTimed, timedReinsRun } from "./overhead.ts";

/** One save as the bench saw it. */
interface SaveRecord {
  messages: number;
  bytes: number;
  ms: number;
}

/** Bytes and ms to persist one turn. */
export interface TurnPersist {
  bytes: number;
  ms: number;
  saves: number;
}

/** The figures of one configuration (store only, or store and KV trace). */
export interface KvConfigResult {
  label: string;
  /** Per run: turn 1, turn 100, and the exit save. */
  turn1: TurnPersist[];
  turn100: TurnPersist[];
  exit: TurnPersist[];
  /** Per run, per turn timings. */
  turns: TurnTiming[][];
  totals: (TurnTiming & { turns: number })[];
}

/** What {@link benchKv} measured. */
export interface KvResult {
  configs: KvConfigResult[];
  /** Median ms to load a 100-turn run back (validated). */
  loadMs: number;
  /** Median ms of one bare `kv.atomic().check().set(1 KB).commit()` on the same file. */
  commitFloorMs: number;
  /** Whether the store reports bytes per commit (`lastCommitBytes`). */
  bytesKnown: boolean;
  fileBytes: number;
  runs: number;
}

/** A store that records every save's size and duration. */
class MeasuredStore implements RunStore {
  log: SaveRecord[] = [];
  constructor(readonly inner: KvRunStore) {}
  async save(state: Readonly<RunState>): Promise<void> {
    const t0 = performance.now();
    await this.inner.save(state);
    const ms = performance.now() - t0;
    const bytes = (this.inner as { lastCommitBytes?: unknown }).lastCommitBytes;
    this.log.push({
      messages: state.messages.length,
      bytes: typeof bytes === "number" ? bytes : NaN,
      ms,
    });
  }
  load(runId: string): Promise<RunState> {
    return this.inner.load(runId);
  }
}

/** Sums the saves that appended messages `from..to` (counts, inclusive). */
function persisted(log: SaveRecord[], from: number, to: number): TurnPersist {
  let prev = 0;
  const hit: SaveRecord[] = [];
  for (const s of log) {
    if (s.messages > prev && s.messages >= from && s.messages <= to) hit.push(s);
    prev = Math.max(prev, s.messages);
  }
  return {
    bytes: hit.reduce((n, s) => n + s.bytes, 0),
    ms: hit.reduce((n, s) => n + s.ms, 0),
    saves: hit.length,
  };
}

/** The label of the configuration whose prompt is compacted (a context policy). */
export const KV_COMPACTED = "KV store, compacted at 2,000 tokens";

/**
 * The configurations: the store alone, with its trace, and with a context
 * policy (a summary near turn 50: the header then carries it on every save).
 */
const KV_CONFIGS: { label: string; extra(store: KvRunStore): Partial<RunOptions> }[] = [
  { label: "KV store", extra: () => ({}) },
  { label: "KV store + KV trace", extra: (store) => ({ trace: store.traceSink() }) },
  { label: KV_COMPACTED, extra: () => ({ context: { trigger: { tokens: 2000 } } }) },
];

/** Runs `runaway` x100 with the KV store on a temp SQLite file. */
export async function benchKv(
  tools: readonly AnyTool[],
  options: { runs?: number } = {},
): Promise<KvResult> {
  const runs = options.runs ?? 3;
  const dir = await Deno.makeTempDir({ prefix: "reins-bench-kv-" });
  const path = join(dir, "runs.sqlite");
  const kv = await Deno.openKv(path);
  try {
    const kvStore = new KvRunStore(kv);
    const rec = new Recorder();
    const model = scriptedModelTimed("runaway", rec);
    const configs: KvConfigResult[] = [];
    const loads: number[] = [];
    let bytesKnown = true;
    for (const { label, extra } of KV_CONFIGS) {
      progress(`runaway x100 with ${label} on a SQLite file, ${runs} runs (+1 warm-up)`);
      const c: KvConfigResult = { label, turn1: [], turn100: [], exit: [], turns: [], totals: [] };
      for (let i = -1; i < runs; i++) {
        const store = new MeasuredStore(kvStore);
        const s = await timedReinsRun(model, tools, 100, rec, { store, ...extra(kvStore) });
        if (s.status !== "max_turns_exceeded" || s.turns !== 100) {
          throw new Error(`kv runaway: expected 100 turns, got ${s.status} after ${s.turns}`);
        }
        if (i < 0) continue;
        // newRun(TASK) holds one message; turn k appends messages 2k and 2k+1.
        c.turn1.push(persisted(store.log, 2, 3));
        c.turn100.push(persisted(store.log, 200, 201));
        const last = store.log.at(-1)!;
        c.exit.push({ bytes: last.bytes, ms: last.ms, saves: 1 });
        if (store.log.some((x) => Number.isNaN(x.bytes))) bytesKnown = false;
        // The last turn runs to run() returning, which includes the exit save:
        // a commit turn 1 does not have. Take it out (it is reported apart).
        const turns = perTurn(rec);
        const lastTurn = turns[turns.length - 1];
        lastTurn.own -= last.ms;
        lastTurn.wall -= last.ms;
        c.turns.push(turns);
        c.totals.push(totals(rec));
        const t0 = performance.now();
        const back = await new KvRunStore(kv).load(s.runId);
        loads.push(performance.now() - t0);
        if (back.messages.length !== s.messages.length) {
          throw new Error(
            `kv load: ${back.messages.length} messages, expected ${s.messages.length}`,
          );
        }
      }
      configs.push(c);
    }
    const commitFloorMs = await commitFloor(kv);
    let fileBytes = 0;
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile) fileBytes += (await Deno.stat(join(dir, e.name))).size;
    }
    return { configs, loadMs: median(loads), commitFloorMs, bytesKnown, fileBytes, runs };
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The floor of one durable commit: a checked 1 KB set, 200 times (after 20 warm-up). */
async function commitFloor(kv: Deno.Kv): Promise<number> {
  const key = ["bench", "floor"];
  const value = "x".repeat(1024);
  let versionstamp: string | null = (await kv.get(key)).versionstamp;
  const ms: number[] = [];
  for (let i = -20; i < 200; i++) {
    const t0 = performance.now();
    const res = await kv.atomic().check({ key, versionstamp }).set(key, value).commit();
    if (!res.ok) throw new Error("commit floor: check failed");
    versionstamp = res.versionstamp;
    if (i >= 0) ms.push(performance.now() - t0);
  }
  await kv.delete(key);
  return median(ms);
}
