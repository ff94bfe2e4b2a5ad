/**
 * What the server is built from: the KV, the store, auth, how models and
 * tools are made, and how work is started. Shared by the app and the worker.
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import { createOpenAIModel } from "../harness/openai_model.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { scriptedModel } from "../provider/scripted_model.ts";
import { SCENARIOS } from "../provider/scenarios.ts";
import { TREE_SCENARIOS } from "../provider/tree_scenarios.ts";
import type { ScanArchiveOptions } from "../tools/scan_archive.ts";
import type { RunSettings } from "../runtime/run_settings.ts";
import type { RunLimits } from "../harness/limits.ts";

/** What every new run starts with unless its request says otherwise (from `reins.jsonc`). */
export interface RunDefaults {
  /** Settings stored with each new run under its request's `options`. */
  settings?: RunSettings;
  /** Limits of each new run under its request's `limits`. */
  limits?: Partial<RunLimits>;
}

/** Everything {@link createApp} and {@link startWorker} need. */
export interface ServerDeps {
  /** The open KV (closed by the caller, after the worker stops). */
  kv: Deno.Kv;
  /** The run store over `kv`; its `owner` names this worker and its `leaseMs` is used. */
  store: KvRunStore;
  /** Bearer token required on every route when set (`REINS_TOKEN`). */
  token?: string;
  /** Serve the scripted provider under `/v1` and allow scenario runs (`REINS_SCRIPTED=1`). */
  scripted?: boolean;
  /** Builds the model of a run from its name (default: {@link defaultMakeModel}). */
  makeModel?: (name: string) => Model;
  /** The model of a run that names none (default `LLM_MODEL`, else `plan` when scripted). */
  defaultModel?: string;
  /** Folder of the runs' workspaces, one per tree root (default `.reins/workspaces`). */
  workspaceRoot?: string;
  /** Options of `scan_archive` in server runs (e.g. `{ ms: 300 }` in tests). */
  scan?: ScanArchiveOptions;
  /**
   * Starts a run a request created or continued, on this instance (the
   * server passes its worker's `schedule`). Default: nothing, and a sweep
   * (any instance's, or a `deno task worker`'s) picks the run up.
   */
  schedule?: (runId: string) => Promise<void>;
  /** Called (not awaited) on every request: the worker's throttled sweep. */
  onRequest?: () => void;
  /** Poll interval of live events and of the Stop key, in ms (default 100). */
  pollMs?: number;
  /** Pause between the streamed chunks of scripted replies, in ms (default 0). */
  chunkMs?: number;
  /** Aborted when the server shuts down: event streams end. */
  closing?: AbortSignal;
  /** Defaults of new runs (the config file's prices, limits, budget mode, ...). */
  runDefaults?: RunDefaults;
}

/** All known scenario names: the built-in ones and the run-tree ones. */
export const ALL_SCENARIOS: Readonly<Record<string, unknown>> = { ...SCENARIOS, ...TREE_SCENARIOS };

/** Options of {@link defaultMakeModel}. */
export interface MakeModelOptions {
  /** Scenario names play the scripted model (in process). */
  scripted?: boolean;
  /** Delay of each scripted reply in ms. */
  latencyMs?: number;
  /** Pause between the streamed chunks of a scripted reply, in ms. */
  chunkMs?: number;
  /** OpenAI-compatible endpoint for every other name (default env `LLM_BASE_URL`). */
  baseUrl?: string;
  /** Its key (default env `LLM_API_KEY`). */
  apiKey?: string;
}

/**
 * The default model factory: a scenario name plays the scripted provider in
 * process (when `scripted`); any other name goes to `LLM_BASE_URL`. Throws
 * `TypeError` for a name it cannot serve.
 *
 * @example
 * ```ts
 * import { defaultMakeModel } from "./deps.ts";
 * const make = defaultMakeModel({ scripted: true });
 * console.log(make("plan").name); // plan
 * ```
 */
export function defaultMakeModel(options: MakeModelOptions = {}): (name: string) => Model {
  const baseUrl = options.baseUrl ?? Deno.env.get("LLM_BASE_URL");
  const apiKey = options.apiKey ?? Deno.env.get("LLM_API_KEY");
  return (name) => {
    if (options.scripted && Object.hasOwn(ALL_SCENARIOS, name)) {
      const { latencyMs, chunkMs } = options;
      return scriptedModel(name, { scenarios: TREE_SCENARIOS, latencyMs, chunkMs });
    }
    if (baseUrl) return createOpenAIModel({ baseUrl, model: name, apiKey });
    throw new TypeError(
      options.scripted
        ? `unknown model "${name}": not a scenario, and LLM_BASE_URL is not set`
        : `cannot serve model "${name}": LLM_BASE_URL is not set (scenarios need REINS_SCRIPTED=1)`,
    );
  };
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
  if (!deps?.kv || !deps.store) throw new TypeError("server deps: kv and store are required");
  const { kv, store } = deps;
  const scripted = deps.scripted ?? false;
  return {
    ...deps,
    scripted,
    makeModel: deps.makeModel ?? defaultMakeModel({ scripted, chunkMs: deps.chunkMs }),
    defaultModel: deps.defaultModel ?? Deno.env.get("LLM_MODEL") ?? (scripted ? "plan" : undefined),
    workspaceRoot: deps.workspaceRoot ?? ".reins/workspaces",
    scan: deps.scan ?? {},
    schedule: deps.schedule ?? (() => Promise.resolve()),
    onRequest: deps.onRequest ?? (() => {}),
    pollMs: deps.pollMs ?? 100,
    runDefaults: deps.runDefaults ?? {},
    chunkMs: deps.chunkMs ?? 0,
    freshStore: () => new KvRunStore(kv, { owner: store.owner, leaseMs: store.leaseMs }),
  };
}
