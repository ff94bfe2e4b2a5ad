/**
 * What the server is built from: the KV, the store, the agents it serves,
 * auth, how models are made, and how work is started. Shared by the app and
 * the worker.
 *
 * @module
 */
import type { RunDefaults } from "../subagents/agent_run_options.ts";
import type { RunState } from "../harness/state.ts";
import { resolveWorkerDeps, type WorkerDeps } from "../runtime/worker.ts";
import type { ScenarioCatalog } from "../testing/scenario_catalog.ts";

export type { RunDefaults };

/** A handler mounted under a path prefix of the app (e.g. a scripted provider at `/v1`). */
export type Mounted = (request: Request) => Response | Promise<Response>;

/** Everything {@link createApp} needs: a worker's deps and the HTTP side's. */
export interface ServerDeps extends WorkerDeps {
  /** Bearer token required on every route when set (`REINS_TOKEN`). */
  token?: string | undefined;
  /**
   * Starts a run a request created or continued, on this instance (the
   * server passes its worker's `schedule`). Default: nothing, and a sweep
   * (any instance's, or a `deno task worker`'s) picks the run up.
   */
  schedule?: ((runId: string) => Promise<void>) | undefined;
  /**
   * Saves a run a request created, with its settings, and starts it on this
   * instance (the server passes its worker's `start`: the run, its settings
   * and its lease in one commit). Default: saved, then `schedule`d.
   */
  start?: ((state: RunState, settings: unknown) => Promise<void>) | undefined;
  /** Called (not awaited) on every request: the worker's throttled sweep. */
  onRequest?: (() => void) | undefined;
  /** Aborted when the server shuts down: event streams end. */
  closing?: AbortSignal | undefined;
  /** Defaults of new runs (the config file's limits, budget mode, ...). */
  runDefaults?: RunDefaults | undefined;
  /** Scenarios a request may play (none by default: `scenario` is then a 400). */
  scenarios?: ScenarioCatalog | undefined;
  /** Handlers by path prefix (`{ "/v1": provider.fetch }`), behind the token like every route. */
  mount?: Readonly<Record<string, Mounted>> | undefined;
}

/** {@link ServerDeps} with every default filled in. */
export interface ResolvedDeps extends ReturnType<typeof resolveWorkerDeps> {
  /** As in {@link ServerDeps}. */
  schedule: (runId: string) => Promise<void>;
  /** As in {@link ServerDeps}. */
  start: (state: RunState, settings: unknown) => Promise<void>;
  /** As in {@link ServerDeps}. */
  onRequest: () => void;
  /** As in {@link ServerDeps} (`{}` when none). */
  runDefaults: RunDefaults;
  /** As in {@link ServerDeps}. */
  token?: string | undefined;
  /** As in {@link ServerDeps}. */
  closing?: AbortSignal | undefined;
  /** As in {@link ServerDeps}. */
  scenarios?: ScenarioCatalog | undefined;
  /** As in {@link ServerDeps} (`{}` when none). */
  mount: Readonly<Record<string, Mounted>>;
}

/**
 * Fills in the defaults of {@link ServerDeps}.
 *
 * @example
 * ```ts
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const a = defineAgent({ name: "a", instructions: "Be brief.", tools: [] });
 * const deps = resolveDeps({ kv, store: new KvRunStore(kv), agents: [a] });
 * console.log(deps.agents.defaultName, deps.pollMs); // a 100
 * kv.close();
 * ```
 */
export function resolveDeps(deps: ServerDeps): ResolvedDeps {
  const worker = resolveWorkerDeps(deps);
  const schedule = deps.schedule ?? (() => Promise.resolve());
  return {
    ...worker,
    token: deps.token,
    closing: deps.closing,
    scenarios: deps.scenarios,
    schedule,
    start: deps.start ?? (async (state, settings) => {
      // With its settings, in one commit: the run is only picked up once it exists.
      await worker.freshStore().save(state, { settings });
      await schedule(state.runId);
    }),
    onRequest: deps.onRequest ?? (() => {}),
    runDefaults: deps.runDefaults ?? {},
    mount: deps.mount ?? {},
  };
}
