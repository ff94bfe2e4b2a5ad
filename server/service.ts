/**
 * Starting a server's parts for a list of agents: `reins.jsonc` (its MCP
 * servers, prices, limits), the KV, the store, the worker and the app, and
 * shutting them down in order. Used by `serve()` (a `Deno.serve` process,
 * Deno Deploy) and `serveHandler()` (`deno serve --parallel`).
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { defaultKvPath, openKv } from "../kv/open_kv.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { loadConfig } from "../runtime/config.ts";
import { type ModelSettings, modelSettings, type ReinsEnv } from "../runtime/env.ts";
import { defaultMakeModel } from "../runtime/make_model.ts";
import { openProcessTools, type ProcessTools } from "../runtime/process_tools.ts";
import { startWorker, type Worker } from "../runtime/worker.ts";
import { createApp, type ReinsApp } from "./app.ts";
import type { Mounted, RunDefaults } from "./deps.ts";
import type { ScenarioCatalog } from "../testing/scenario_catalog.ts";

/** What a server serves: its agents, and how it makes their models. */
export interface ServeOptions {
  /** The agents it serves: it starts and executes runs of these only. */
  agents: readonly Agent[];
  /** The agent of a request that names none (default: the only one, if one). */
  defaultAgent?: string | undefined;
  /**
   * Makes the model factory from the process's model settings (`LLM_*` over
   * `reins.jsonc`); default: every name goes to the OpenAI-compatible `baseUrl`.
   */
  models?: ((settings: ModelSettings) => (name: string) => Model) | undefined;
  /** The model of runs whose agent names none, when `LLM_MODEL` and the file name none. */
  defaultModel?: string | undefined;
  /** Scenarios a request may play (the demo's). */
  scenarios?: ScenarioCatalog | undefined;
  /** Handlers by path prefix, e.g. a scripted provider at `/v1`. */
  mount?: Readonly<Record<string, Mounted>> | undefined;
}

/**
 * Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
 *
 * @example
 * ```ts
 * import { isLoopback } from "./service.ts";
 * console.log(isLoopback("127.0.0.1"), isLoopback("0.0.0.0")); // true false
 * ```
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Why the server must not listen, or null: anything but loopback (and Deno
 * Deploy) needs `REINS_TOKEN`.
 *
 * @example
 * ```ts
 * import { listenRefusal } from "./service.ts";
 * console.log(listenRefusal({ host: "0.0.0.0", deploy: false }));
 * ```
 */
export function listenRefusal(config: Pick<ReinsEnv, "host" | "token" | "deploy">): string | null {
  if (config.token) return null;
  if (config.deploy) return "refusing to serve on Deno Deploy without REINS_TOKEN";
  if (!isLoopback(config.host)) {
    return `refusing to listen on ${config.host} without REINS_TOKEN (only loopback is allowed)`;
  }
  return null;
}

/** A started service: the app to serve and how to stop everything else. */
export interface Service {
  /** The app to serve. */
  readonly app: ReinsApp;
  /** The worker executing runs in this isolate (and sweeping for runs no one executes). */
  readonly worker: Worker;
  /** The KV handle (closed by {@link Service.close}). */
  readonly kv: Deno.Kv;
  /** The tools of `reins.jsonc`'s MCP servers every root run executed here gets. */
  readonly tools: readonly AnyTool[];
  /**
   * On eviction or shutdown: ends event streams, stops the worker (its runs
   * checkpointed, `running` again, leases released: another process resumes
   * them at once), closes the KV and the MCP servers of `reins.jsonc`.
   */
  close(): Promise<void>;
}

async function openServiceKv(env: ReinsEnv, mcp: ProcessTools): Promise<Deno.Kv> {
  try {
    // On Deploy, the app's database unless a path (or KV Connect URL) is given.
    return env.deploy && !env.kvPath
      ? await openKv()
      : await openKv(await defaultKvPath(env.kvPath));
  } catch (e) {
    await mcp.close();
    throw e;
  }
}

/**
 * Loads `reins.jsonc` (`REINS_CONFIG`), opens its MCP servers (their tools
 * go to every root run this process executes) and the KV (`Deno.openKv()`
 * on Deploy unless `REINS_KV_PATH` is set), starts the worker and creates
 * the app over `options.agents`.
 *
 * @example
 * ```ts
 * import { startService } from "./service.ts";
 * import { readEnv } from "../runtime/env.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * const service = await startService({ agents }, { ...readEnv({}), kvPath: ":memory:" });
 * await service.close();
 * ```
 */
export async function startService(options: ServeOptions, env: ReinsEnv): Promise<Service> {
  const raw = await loadConfig(env.configPath);
  const settings = modelSettings(raw);
  const makeModel = (options.models ?? defaultModels)(settings);
  const mcp = await openProcessTools(raw.mcpServers);
  const agents = agentRegistry(options.agents, {
    defaultAgent: options.defaultAgent,
    extraTools: mcp.tools,
    resolveModel: makeModel,
  });
  const kv = await openServiceKv(env, mcp);
  const owner = `w${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new KvRunStore(kv, {
    owner,
    leaseMs: env.leaseMs,
  });
  const closing = new AbortController();
  const { budgetMode, dedupe, toolErrors, context } = raw;
  const runDefaults: RunDefaults = {
    settings: JSON.parse(JSON.stringify({ budgetMode, dedupe, toolErrors, context })),
    ...(settings.limits ? { limits: settings.limits } : {}),
  };
  const defaultModel = settings.model ?? options.defaultModel;
  const deps = {
    kv,
    store,
    agents,
    token: env.token,
    makeModel,
    defaultModel,
    prices: settings.prices,
    runDefaults,
    workspaceRoot: env.workspaceRoot,
    closing: closing.signal,
    scenarios: options.scenarios,
    mount: options.mount,
  };
  const worker = startWorker(deps, { everyMs: env.sweepMs });
  const app = createApp({
    ...deps,
    schedule: worker.schedule,
    start: worker.start,
    onRequest: worker.nudge,
  });
  let closed: Promise<void> | undefined;
  return {
    app,
    worker,
    kv,
    tools: mcp.tools,
    close() {
      closed ??= (async () => {
        closing.abort("the server is shutting down");
        await worker.stop();
        kv.close();
        await mcp.close(); // after the worker: no run is using their tools any more
      })();
      return closed;
    },
  };
}

function defaultModels(settings: ModelSettings): (name: string) => Model {
  const { baseUrl, apiKey } = settings;
  return defaultMakeModel({
    baseUrl,
    apiKey,
  });
}
