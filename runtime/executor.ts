/**
 * Executing stored runs in the background: an executor runs a stored tree
 * root of an agent this process serves, under its lease and its Stop, with
 * the agent's tools in the tree's own folder. Idempotent: a run that is not
 * `running`, whose lease another worker holds, or whose agent is not served
 * here is left alone, so two sweeps (or a sweep and a request) claiming the
 * same run do no harm.
 *
 * @module
 */
import { join } from "node:path";
import type { Prices, PriceTable } from "../harness/cost.ts";
import type { Model } from "../harness/model.ts";
import type { RunState } from "../harness/state.ts";
import type { TraceSink } from "../harness/trace.ts";
import { RunConflictError, RunNotFoundError, RunStateError } from "../harness/errors.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { readStop } from "../kv/stop_record.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { checkRunAgent, failRun } from "./agent_check.ts";
import type { AgentRegistry } from "./agent_registry.ts";
import { markRunning } from "./continue_tree.ts";
import { executeTree } from "./execute_tree.ts";
import { handOverTrace } from "./hand_over.ts";
import { agentRunOptions } from "../subagents/agent_run_options.ts";

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
  /** The agents this process serves: it executes only their runs. */
  agents: AgentRegistry;
  /** Builds the model of a run from its name. */
  makeModel(name: string): Model;
  /** The model of a run that names none. */
  defaultModel?: string | undefined;
  /** Folder of the trees' own folders (`AgentContext.dir` is `<workspaceRoot>/<rootId>`). */
  workspaceRoot: string;
  /** Prices of the process's model (an agent's own win). */
  prices?: Prices | PriceTable | undefined;
  /** Poll interval of the Stop record, in ms. */
  pollMs?: number | undefined;
}

/** A model that fails every call with `error` (the run then stops `failed`, saying why). */
function failingModel(name: string, error: unknown): Model {
  return { name, complete: () => Promise.reject(error) };
}

/**
 * The model of a run of `agent`: its own, else the one the run names, else
 * the default (a name that cannot be served gives a model failing each call,
 * so the run ends `failed` saying why).
 *
 * @example
 * ```ts
 * import { modelOf } from "./executor.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * import { newRun } from "../harness/state.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [], model: "echo" });
 * console.log(modelOf(a, newRun("hi"), { makeModel: (n) => scriptedModel(n) }).name); // echo
 * ```
 */
export function modelOf(
  agent: Agent,
  state: RunState,
  deps: Pick<ExecutorDeps, "makeModel" | "defaultModel">,
): Model {
  if (agent.model !== undefined && typeof agent.model !== "string") return agent.model;
  const name = agent.model ?? state.model ?? deps.defaultModel ?? "unknown";
  try {
    return deps.makeModel(name);
  } catch (e) {
    return failingModel(name, e);
  }
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
  /**
   * Saves new root run `state` with its execution `settings` (as
   * `KvRunStore.saveSettings` stores them) and, in the same commit, this
   * executor's lease on it; then executes it in the background, as `spawn`,
   * without loading it back. Once the executor is stopped, the run is saved
   * without a lease, for a sweep elsewhere. `RunConflictError` if its id exists.
   */
  start(state: RunState, settings: unknown): Promise<void>;
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
 * await store.save(s);
 * console.log((await executor.execute(s.runId))?.output); // hi
 * await Deno.remove(root, { recursive: true });
 * kv.close();
 * ```
 */
export function createExecutor(deps: ExecutorDeps): Executor {
  const running = new Set<Promise<unknown>>();
  const shutdown = new AbortController();
  const unknown = new Set<string>();

  async function execute(runId: string, created?: Created): Promise<RunState | null> {
    if (shutdown.signal.aborted) throw new Error("the executor is stopped");
    return await executeRoot(deps, runId, shutdown.signal, unknown, created);
  }

  /** `p`, counted in `running` until it settles (stop() and idle() wait for it). */
  function counted<T>(p: Promise<T>): Promise<T> {
    const settled = p.then(() => {}, () => {}).finally(() => running.delete(settled));
    running.add(settled);
    return p;
  }

  const tracked = (runId: string, created?: Created) => counted(execute(runId, created));

  const background = (runId: string, created?: Created) =>
    void tracked(runId, created).catch((e) =>
      console.error(`reins: executing run ${runId} failed:`, e)
    );

  return {
    execute: (runId) => tracked(runId),
    spawn(runId) {
      if (!shutdown.signal.aborted) background(runId);
      return Promise.resolve();
    },
    start(state, settings) {
      // Counted from its save on: a stop() meanwhile waits for it (and the lease it takes).
      return counted((async () => {
        const store = deps.freshStore();
        await store.save(state, { settings, lease: !shutdown.signal.aborted });
        // Stopped meanwhile: the lease goes at once, for a sweep elsewhere.
        if (shutdown.signal.aborted) await store.releaseLease(state.runId).catch(() => false);
        else background(state.runId, { store, state, settings });
      })());
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

/**
 * A run {@link Executor.start} just created with its lease and settings, and
 * the store that saved it: executed as it is, nothing read back.
 */
interface Created {
  store: KvRunStore;
  state: RunState;
  settings: unknown;
}

/** A stored tree root that is `running`, or null (deleted meanwhile, a child, or stopped). */
async function loadRoot(store: KvRunStore, runId: string): Promise<RunState | null> {
  let state: RunState;
  try {
    state = await store.load(runId);
  } catch (e) {
    if (e instanceof RunNotFoundError) return null; // deleted meanwhile
    throw e;
  }
  // Children run inside their root; anything but `running` is done or awaits a person.
  return state.parentId !== null || state.status !== "running" ? null : state;
}

/**
 * Executes stored root `runId` if it is `running`, of an agent `deps`
 * serves, and no other worker holds its lease; a run whose agent changed
 * under a pending call ends `failed`. `unknown` holds the runs already
 * logged as not served here (each is logged once).
 */
async function executeRoot(
  deps: ExecutorDeps,
  runId: string,
  shutdown: AbortSignal,
  unknown: Set<string>,
  created?: Created,
): Promise<RunState | null> {
  if (!created) return await executeLoaded(deps, deps.freshStore(), runId, shutdown, unknown);
  const { store, state, settings } = created;
  let claimed = false;
  let threw = true;
  try {
    const done = await executeLoaded(deps, store, state, shutdown, unknown, {
      settings,
      onExecute: () => claimed = true,
    });
    threw = false;
    return done;
  } finally {
    // Not executed after all (its agent refused it, say), or failed before executeRun took
    // the lease over (a KV error reading its Stop): its creator's lease goes now. After
    // executeRun's own release this one finds no lease of ours: a no-op.
    if (!claimed || threw) await store.releaseLease(runId).catch(() => false);
  }
}

/**
 * {@link executeRoot} of a run loaded here, or given as `state`. `created`: it
 * was created here with its lease and these settings (`onExecute` before it
 * is executed).
 */
async function executeLoaded(
  deps: ExecutorDeps,
  store: KvRunStore,
  runOrState: string | RunState,
  shutdown: AbortSignal,
  unknown: Set<string>,
  created?: { settings: unknown; onExecute: () => void },
): Promise<RunState | null> {
  const runId = typeof runOrState === "string" ? runOrState : runOrState.runId;
  const state = typeof runOrState === "string" ? await loadRoot(store, runId) : runOrState;
  if (!state) return null;
  const check = await checkRunAgent(store, state, deps.agents, created?.settings);
  if (check.kind === "unknown") {
    // Not ours (a rolling deploy, another service's agent): leave it, and its lease.
    if (!unknown.has(runId)) {
      unknown.add(runId);
      const name = check.agent ?? "(none)";
      console.warn(`reins: leaving run ${runId}: its agent "${name}" is not served here`);
    }
    return null;
  }
  if (check.kind === "refused") {
    return await failRun(store, runId, check.reason) ? await store.load(runId) : null;
  }
  const runOptions = await agentRunOptions(check.agent, check.options, {
    model: modelOf(check.agent, state, deps),
    context: { rootId: state.rootId, dir: join(deps.workspaceRoot, state.rootId) },
    resolveModel: deps.makeModel,
    prices: deps.prices,
    signal: shutdown,
    extraTools: deps.agents.extraTools,
  });
  const handOver = handOverOnEviction(deps.kv, store, state.rootId, shutdown);
  try {
    created?.onExecute();
    // The state just loaded (executeRun reloads it only if it moved before the lease), or
    // created with its lease here (executeRun neither takes the lease again nor reads it back).
    return await executeTree(store, deps.kv, state, {
      ...runOptions,
      pollMs: deps.pollMs,
      onlyIfRunning: true,
      leased: created !== undefined,
      settle: handOver.settle,
      mapTrace: handOver.mapTrace,
    });
  } catch (e) {
    // Another worker executes it, or it finished between our look and our lease.
    if (e instanceof RunConflictError || e instanceof RunStateError) return null;
    throw e;
  }
}

/**
 * Evicted, not stopped by a person: the run (and each child the eviction
 * interrupted) is handed over, decided once, when its `run_stopped` is
 * emitted: that event becomes a `run_handed_over`, and the root is marked
 * `running` again before the lease goes. A Stop recorded later applies where
 * the run resumes (it reads the Stop before its first call).
 */
function handOverOnEviction(
  kv: Deno.Kv,
  store: KvRunStore,
  rootId: string,
  shutdown: AbortSignal,
): { mapTrace(sink: TraceSink): TraceSink; settle(done: RunState): Promise<RunState> } {
  const handedOver = new Set<string>();
  return {
    mapTrace: (sink) =>
      handOverTrace(sink, {
        by: store.owner,
        async isHandOver(e) {
          const i = e.interruption;
          const evicted = shutdown.aborted && e.status === "interrupted" &&
            i?.type === "cancelled" && i.reason === EVICTION_REASON;
          if (!evicted || await readStop(kv, rootId)) return false;
          handedOver.add(e.runId);
          return true;
        },
      }),
    settle: async (done) =>
      handedOver.has(done.runId) ? await markRunning(store, done.runId) : done,
  };
}
