/**
 * What the loop needs from persistence: one `save` per checkpoint. The KV
 * store (kv/) implements it with append-only keys; {@link MemoryRunStore} is
 * for tests and embedding.
 *
 * @module
 */
import { RunNotFoundError } from "./errors.ts";
import type { RunState } from "./state.ts";
import { cloneData } from "./clone_data.ts";

/** Persistence as the loop sees it. */
export interface RunStore {
  /**
   * Commits the run as it is now. Called after each model reply that calls
   * tools (before they run), before a model call the last save did not record,
   * before a write tool starts (its intent), after each tool result, and at
   * every exit (which carries a final reply with it). Throws
   * `RunConflictError` when another executor
   * advanced the same run.
   */
  save(state: Readonly<RunState>): Promise<void>;
  /** Loads a run (throws `RunNotFoundError`). */
  load(runId: string): Promise<RunState>;
  /**
   * Loads a run only to read it (a fork's source), not to continue it; a
   * store whose `load` remembers what it loaded (KvRunStore) remembers
   * nothing here. Absent: `load` is used.
   */
  read?(runId: string): Promise<RunState>;
}

/**
 * A store in memory: keeps a deep copy per run.
 *
 * @example
 * ```ts
 * import { MemoryRunStore } from "./run_store.ts";
 * import { newRun } from "./state.ts";
 * const store = new MemoryRunStore();
 * const s = newRun("hi");
 * await store.save(s);
 * console.log((await store.load(s.runId)).messages.length); // 1
 * ```
 */
export class MemoryRunStore implements RunStore {
  #runs = new Map<string, RunState>();
  /** How many times `save` was called (for tests). */
  saves = 0;

  /** Stores a deep copy. */
  save(state: Readonly<RunState>): Promise<void> {
    this.saves++;
    this.#runs.set(state.runId, cloneData(state) as RunState);
    return Promise.resolve();
  }

  /** Returns a deep copy. */
  load(runId: string): Promise<RunState> {
    const s = this.#runs.get(runId);
    if (!s) return Promise.reject(new RunNotFoundError(runId));
    return Promise.resolve(cloneData(s));
  }

  /** Every stored run. */
  list(): RunState[] {
    return [...this.#runs.values()].map((s) => cloneData(s));
  }
}
