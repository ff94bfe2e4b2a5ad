/**
 * Executing stored runs in the background: the options of a run (its stored
 * settings), its workspace, and an executor that runs a stored tree root under its lease and its Stop.
 * Idempotent: a run that is not `running`, or whose lease another worker
 * holds, is left alone, so two sweeps (or a sweep and a request) claiming the
 * same run do no harm.
 *
 * @module
 */
import { join } from "node:path";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import type { RunState } from "../harness/state.ts";
import type { TraceSink } from "../harness/trace.ts";
import { RunConflictError, RunNotFoundError, RunStateError } from "../harness/errors.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { readStop } from "../kv/stop_record.ts";
import type { ScanArchiveOptions } from "../tools/scan_archive.ts";
import { createWorkspace, isDirectory, openWorkspace, type Workspace } from "../tools/workspace.ts";
import { markRunning } from "./continue_tree.ts";
import { executeTree } from "./execute_tree.ts";
import { handOverTrace } from "./hand_over.ts";
import { parseStoredSettings, runOptionsFor } from "./run_settings.ts";

/**
 * The reason an executor that is stopped (an instance evicted, a server or
 * worker shutting down) aborts its runs with. Such a run is not a person's
 * Stop: once checkpointed it is marked `running` again and its lease
 * released, so the next sweep anywhere resumes it.
 */
export const EVICTION_REASON = "the process executing the run stopped (the run resumes elsewhere)";

/**
 * The reason older versions stopped runs with on shutdown (stored
 * `interrupted/cancelled`); a sweep still picks such runs up.
 */
export const SHUTDOWN_REASON = "the server shut down (the run resumes when it restarts)";

/** What an executor needs (the server's resolved deps are one). */
export interface ExecutorDeps {
  /** The open KV (for the tree's Stop). */
  kv: Deno.Kv;
  /** A fresh store over `kv`: one per execution. */
  freshStore(): KvRunStore;
  /** Builds the model of a run from its name. */
  makeModel(name: string): Model;
  /** The model of a run that names none. */
  defaultModel?: string;
  /** Folder of the runs' workspaces, one per tree root. */
  workspaceRoot: string;
  /** Options of `scan_archive`. */
  scan?: ScanArchiveOptions;
  /** Poll interval of the Stop record, in ms. */
  pollMs?: number;
  /** More tools for every root run it executes (the process's MCP servers' tools). */
  extraTools?: readonly AnyTool[];
}

/** The workspace of tree `rootId` under `root`, created with the demo files on first use. */
async function workspaceOf(root: string, rootId: string): Promise<Workspace> {
  const dir = join(root, rootId);
  return await isDirectory(dir) ? openWorkspace(dir) : await createWorkspace({ dir });
}

/** A model that fails every call with `error` (the run then stops `failed`, saying why). */
function failingModel(name: string, error: unknown): Model {
  return { name, complete: () => Promise.reject(error) };
}

/** Runs stored runs in this process; see {@link createExecutor}. */
export interface Executor {
  /**
   * Executes stored run `runId` (a tree root) if it is `running` and no other
   * worker holds its lease; resolves with its final state, or null when there
   * was nothing to do.
   */
  execute(runId: string): Promise<RunState | null>;
  /**
   * `execute` in the background (errors are logged); resolves once started.
   * Does nothing once the executor is stopped: the run stays `running` for a
   * sweep elsewhere.
   */
  spawn(runId: string): Promise<void>;
  /** Resolves when nothing executes in this executor. */
  idle(): Promise<void>;
  /**
   * Takes no more work, aborts every execution with {@link EVICTION_REASON}
   * and waits until each is checkpointed, marked `running` again (unless a
   * Stop of its tree was recorded) and its lease released.
   */
  stop(): Promise<void>;
  /** Whether {@link Executor.stop} was called. */
  readonly stopped: boolean;
  /** Executions going on. */
  readonly executing: number;
}

/**
 * An executor over `deps` (the server's resolved deps, or any {@link ExecutorDeps}).
 *
 * @example
 * ```ts
 * import { createExecutor } from "./executor.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const root = await Deno.makeTempDir();
 * const executor = createExecutor({
 *   kv,
 *   freshStore: () => new KvRunStore(kv),
 *   makeModel: (name) => scriptedModel(name),
 *   workspaceRoot: root,
 * });
 * const s = newRun("hi", { model: "echo" });
 * await store.save(s);
 * console.log((await executor.execute(s.runId))?.output); // hi
 * await Deno.remove(root, { recursive: true });
 * kv.close();
 * ```
 */
export function createExecutor(deps: ExecutorDeps): Executor {
  const running = new Set<Promise<unknown>>();
  const shutdown = new AbortController();

  async function execute(runId: string): Promise<RunState | null> {
    if (shutdown.signal.aborted) throw new Error("the executor is stopped");
    const store = deps.freshStore();
    let state: RunState;
    try {
      state = await store.load(runId);
    } catch (e) {
      if (e instanceof RunNotFoundError) return null; // deleted meanwhile
      throw e;
    }
    // Children run inside their root; anything but `running` is done or awaits a person.
    if (state.parentId !== null || state.status !== "running") return null;
    const name = state.model ?? deps.defaultModel ?? "unknown";
    let model: Model;
    try {
      model = deps.makeModel(name);
    } catch (e) {
      model = failingModel(name, e);
    }
    const settings = parseStoredSettings(runId, await store.settings(runId));
    const workspace = await workspaceOf(deps.workspaceRoot, state.rootId);
    // The settings' limits apply on top of the stored run's (continueTree keeps them in step
    // with the limits a resume gives).
    const runOptions = runOptionsFor(settings, {
      model,
      workspace,
      scan: deps.scan,
      signal: shutdown.signal,
      extraTools: deps.extraTools,
      makeModel: deps.makeModel,
    });
    // Evicted, not stopped by a person: the run (and each child the eviction
    // interrupted) is handed over, decided once, when its `run_stopped` is
    // emitted: that event becomes a `run_handed_over`, and the root is marked
    // `running` again before the lease goes. A Stop recorded later applies
    // where the run resumes (it reads the Stop before its first call).
    const handedOver = new Set<string>();
    const mapTrace = (sink: TraceSink) =>
      handOverTrace(sink, {
        by: store.owner,
        async isHandOver(e) {
          const i = e.interruption;
          const evicted = shutdown.signal.aborted && e.status === "interrupted" &&
            i?.type === "cancelled" && i.reason === EVICTION_REASON;
          if (!evicted || await readStop(deps.kv, state.rootId)) return false;
          handedOver.add(e.runId);
          return true;
        },
      });
    const settle = async (done: RunState) =>
      handedOver.has(done.runId) ? await markRunning(store, done.runId) : done;
    try {
      return await executeTree(store, deps.kv, runId, {
        ...runOptions,
        pollMs: deps.pollMs,
        onlyIfRunning: true,
        settle,
        mapTrace,
      });
    } catch (e) {
      // Another worker executes it, or it finished between our look and our lease.
      if (e instanceof RunConflictError || e instanceof RunStateError) return null;
      throw e;
    }
  }

  function tracked(runId: string): Promise<RunState | null> {
    const p = execute(runId);
    const settled = p.then(() => {}, () => {}).finally(() => running.delete(settled));
    running.add(settled);
    return p;
  }

  return {
    execute: tracked,
    spawn(runId) {
      if (shutdown.signal.aborted) return Promise.resolve();
      tracked(runId).catch((e) => console.error(`reins: executing run ${runId} failed:`, e));
      return Promise.resolve();
    },
    async idle() {
      while (running.size) await Promise.all([...running]);
    },
    async stop() {
      if (!shutdown.signal.aborted) shutdown.abort(EVICTION_REASON);
      while (running.size) await Promise.all([...running]);
    },
    get stopped() {
      return shutdown.signal.aborted;
    },
    get executing() {
      return running.size;
    },
  };
}
