/**
 * The background worker of a server (or of `deno task worker`): an executor
 * and a sweeper over one KV. Runs are started where they are created or
 * continued ({@link Worker.schedule}), and found by sweeps (at start-up, on a
 * timer, when a request nudges, from a cron): a root stored `running` with no
 * live lease is claimed through its lease and executed. No KV queue.
 *
 * @module
 */
import { createExecutor, type Executor } from "../runtime/executor.ts";
import { sweepRunnable } from "../runtime/sweep.ts";
import { startSweeper, type SweeperOptions } from "../runtime/sweeper.ts";
export type { SweeperOptions } from "../runtime/sweeper.ts";
import { resolveDeps, type ServerDeps } from "./deps.ts";

/** A started worker; see {@link startWorker}. */
export interface Worker {
  /** The executor runs execute in (e.g. to wait until idle in tests). */
  readonly executor: Executor;
  /** Settles once the start-up sweep (a full one) has started what it found. */
  readonly recovered: Promise<void>;
  /** Starts run `id` in this process now (the request that created or continued it). */
  schedule(id: string): Promise<void>;
  /** A sweep unless one started a moment ago; never waits (for every request). */
  nudge(): void;
  /** Sweeps now (`full`: also runs older versions stopped on shutdown); resolves with the ids started. */
  sweep(full?: boolean): Promise<string[]>;
  /**
   * Stops taking work, aborts every execution (`EVICTION_REASON`), and waits
   * until each is checkpointed, `running` again and its lease released, so
   * another process resumes it at once. Close the KV afterwards.
   */
  stop(): Promise<void>;
}

/**
 * Starts a worker over `deps.kv`: a full sweep at once, then one every
 * `options.everyMs` (default 5 s) and whenever {@link Worker.nudge}d.
 *
 * @example
 * ```ts
 * import { startWorker } from "./worker.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * const worker = startWorker({ kv, store: new KvRunStore(kv), scripted: true });
 * await worker.recovered;
 * await worker.stop();
 * kv.close();
 * ```
 */
export function startWorker(deps: ServerDeps, options: SweeperOptions = {}): Worker {
  const resolved = resolveDeps(deps);
  const executor = createExecutor(resolved);
  const sweeper = startSweeper(
    (full) => sweepRunnable(executor, resolved.freshStore(), resolved.kv, { full }),
    options,
  );
  const recovered = sweeper.sweep(true).then(() => {});
  return {
    executor,
    recovered,
    schedule: (id) => executor.spawn(id),
    nudge: () => sweeper.nudge(),
    sweep: (full) => sweeper.sweep(full),
    async stop() {
      // The executor first: a sweep still going on then starts nothing.
      await Promise.all([executor.stop(), sweeper.stop()]);
    },
  };
}
