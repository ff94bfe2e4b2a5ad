/**
 * The background worker of a server or of `deno task worker`: an executor
 * and a sweeper over one KV, with no HTTP. Runs are started where they are
 * created or continued ({@link Worker.schedule}), and found by sweeps (at
 * start-up, on a timer, when a request nudges, from a cron): a root stored
 * `running` with no live lease is claimed through its lease and executed. No
 * KV queue.
 *
 * @module
 */
import type { Prices, PriceTable } from "../harness/cost.ts";
import type { Model } from "../harness/model.ts";
import type { RunState } from "../harness/state.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { type AgentRegistry, agentRegistry } from "./agent_registry.ts";
import { readEnv } from "./env.ts";
import { createExecutor, type Executor, type ExecutorDeps } from "./executor.ts";
import { defaultMakeModel } from "./make_model.ts";
import { sweepRunnable } from "./sweep.ts";
import { startSweeper, type SweeperOptions } from "./sweeper.ts";
export type { SweeperOptions } from "./sweeper.ts";

/** What a worker executes runs with (a server's deps are a superset). */
export interface WorkerDeps {
  /** The open KV (closed by the caller, after the worker stops). */
  kv: Deno.Kv;
  /** The run store over `kv`; its `owner` names this worker and its `leaseMs` is used. */
  store: KvRunStore;
  /** The agents this process serves (it executes only their runs), or their registry. */
  agents: readonly Agent[] | AgentRegistry;
  /** The agent of a request or run that names none (default: the only one, if one). */
  defaultAgent?: string | undefined;
  /** Builds a model from its name (default: {@link defaultMakeModel}, `LLM_BASE_URL`). */
  makeModel?: ((name: string) => Model) | undefined;
  /** The model of a run whose agent and request name none (default `LLM_MODEL`). */
  defaultModel?: string | undefined;
  /** Folder of the trees' own folders (default `.reins/workspaces`). */
  workspaceRoot?: string | undefined;
  /** Prices of the process's model (default reins' built-in ones; an agent's own win). */
  prices?: Prices | PriceTable | undefined;
  /** Poll interval of the Stop key (and of a server's live events), in ms (default 100). */
  pollMs?: number | undefined;
  /**
   * More tools for every root run this process executes, e.g. those of the
   * MCP servers of `reins.jsonc` (opened once per process; default none).
   */
  extraTools?: readonly AnyTool[];
}

/** {@link WorkerDeps} with every default filled in: what the executor gets. */
export interface ResolvedWorkerDeps extends ExecutorDeps {
  /** As in {@link WorkerDeps}. */
  store: KvRunStore;
  /** As in {@link WorkerDeps}. */
  makeModel: (name: string) => Model;
  /** As in {@link WorkerDeps}. */
  workspaceRoot: string;
  /** As in {@link WorkerDeps}. */
  pollMs: number;
  /** A fresh store over the same KV (same owner and lease time): one per request or execution. */
  freshStore(): KvRunStore;
}

/**
 * Fills in the defaults of {@link WorkerDeps} (throws `TypeError` without a
 * KV, a store and agents, or for two agents of one name).
 *
 * @example
 * ```ts
 * import { resolveWorkerDeps } from "./worker.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const a = defineAgent({ name: "a", instructions: "Be brief.", tools: [] });
 * const deps = resolveWorkerDeps({ kv, store: new KvRunStore(kv), agents: [a] });
 * console.log(deps.agents.names, deps.pollMs); // [ "a" ] 100
 * kv.close();
 * ```
 */
export function resolveWorkerDeps(deps: WorkerDeps): ResolvedWorkerDeps {
  if (!deps?.kv || !deps.store) throw new TypeError("worker deps: kv and store are required");
  const { kv, store } = deps;
  const makeModel = deps.makeModel ?? defaultMakeModel();
  const agents = Array.isArray(deps.agents)
    ? agentRegistry(deps.agents as readonly Agent[], {
      defaultAgent: deps.defaultAgent,
      extraTools: deps.extraTools,
      resolveModel: makeModel,
    })
    : deps.agents as AgentRegistry;
  if (!agents || typeof (agents as AgentRegistry).pick !== "function") {
    throw new TypeError("worker deps: agents (a list of defineAgent agents) are required");
  }
  return {
    kv,
    store,
    agents,
    makeModel,
    defaultModel: deps.defaultModel ?? readEnv().model,
    workspaceRoot: deps.workspaceRoot ?? ".reins/workspaces",
    prices: deps.prices,
    pollMs: deps.pollMs ?? 100,
    freshStore: () => new KvRunStore(kv, { owner: store.owner, leaseMs: store.leaseMs }),
  };
}

/** A started worker; see {@link startWorker}. */
export interface Worker {
  /** The executor runs execute in (e.g. to wait until idle in tests). */
  readonly executor: Executor;
  /** Settles once the start-up sweep (a full one) has started what it found. */
  readonly recovered: Promise<void>;
  /** Starts run `id` in this process now (the request that created or continued it). */
  schedule(id: string): Promise<void>;
  /**
   * Saves a new root run with its settings and this worker's lease (one
   * commit) and starts it in this process now (see `Executor.start`).
   */
  start(state: RunState, settings: unknown): Promise<void>;
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
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const a = defineAgent({ name: "a", instructions: "Be brief.", tools: [] });
 * const worker = startWorker({ kv, store: new KvRunStore(kv), agents: [a] });
 * await worker.recovered;
 * await worker.stop();
 * kv.close();
 * ```
 */
export function startWorker(deps: WorkerDeps, options: SweeperOptions = {}): Worker {
  const resolved = resolveWorkerDeps(deps);
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
    start: (state, settings) => executor.start(state, settings),
    nudge: () => sweeper.nudge(),
    sweep: (full) => sweeper.sweep(full),
    async stop() {
      // The executor first: a sweep still going on then starts nothing.
      await Promise.all([executor.stop(), sweeper.stop()]);
    },
  };
}
