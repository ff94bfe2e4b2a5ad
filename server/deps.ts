/**
 * What the server is built from: the KV, the store, auth, how models and
 * tools are made, and how work is started. Shared by the app and the worker.
 *
 * @module
 */
import type { KvRunStore } from "../kv/kv_run_store.ts";
import type { RunSettings } from "../runtime/run_settings.ts";
import type { RunLimits } from "../harness/limits.ts";
import { resolveWorkerDeps, type WorkerDeps } from "../runtime/worker.ts";

/** What every new run starts with unless its request says otherwise (from `reins.jsonc`). */
export interface RunDefaults {
  /** Settings stored with each new run under its request's `options`. */
  settings?: RunSettings;
  /** Limits of each new run under its request's `limits`. */
  limits?: Partial<RunLimits>;
}

/** Everything {@link createApp} needs: a worker's deps and the HTTP side's. */
export interface ServerDeps extends WorkerDeps {
  /** Bearer token required on every route when set (`REINS_TOKEN`). */
  token?: string;
  /**
   * Starts a run a request created or continued, on this instance (the
   * server passes its worker's `schedule`). Default: nothing, and a sweep
   * (any instance's, or a `deno task worker`'s) picks the run up.
   */
  schedule?: (runId: string) => Promise<void>;
  /** Called (not awaited) on every request: the worker's throttled sweep. */
  onRequest?: () => void;
  /** Aborted when the server shuts down: event streams end. */
  closing?: AbortSignal;
  /** Defaults of new runs (the config file's prices, limits, budget mode, ...). */
  runDefaults?: RunDefaults;
}

/** {@link ServerDeps} with every default filled in. */
export interface ResolvedDeps
  extends Required<Omit<ServerDeps, "token" | "closing" | "defaultModel" | "runDefaults">> {
  /** As in {@link ServerDeps} (`{}` when none). */
  runDefaults: RunDefaults;
  /** As in {@link ServerDeps}. */
  token?: string;
  /** As in {@link ServerDeps}. */
  closing?: AbortSignal;
  /** As in {@link ServerDeps}; undefined when there is none. */
  defaultModel?: string;
  /** A fresh store over the same KV (same owner and lease time): one per request or execution. */
  freshStore(): KvRunStore;
}

/**
 * Fills in the defaults of {@link ServerDeps}.
 *
 * @example
 * ```ts
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * const deps = resolveDeps({ kv, store: new KvRunStore(kv), scripted: true });
 * console.log(deps.defaultModel, deps.pollMs); // plan 100
 * kv.close();
 * ```
 */
export function resolveDeps(deps: ServerDeps): ResolvedDeps {
  const worker = resolveWorkerDeps(deps);
  return {
    ...deps,
    ...worker,
    schedule: deps.schedule ?? (() => Promise.resolve()),
    onRequest: deps.onRequest ?? (() => {}),
    runDefaults: deps.runDefaults ?? {},
  };
}
