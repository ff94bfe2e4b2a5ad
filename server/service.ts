/**
 * Starting the server's parts from the environment: KV, store, worker, app,
 * and shutting them down in order. Shared by `server/main.ts` (`deno task
 * serve`, Deno Deploy) and `server/serve.ts` (`deno serve --parallel`).
 *
 * @module
 */
import type { AnyTool } from "../harness/run_options.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { defaultKvPath, openKv } from "../kv/open_kv.ts";
import { createApp, type ReinsApp } from "./app.ts";
import { startWorker, type Worker } from "../runtime/worker.ts";
import type { RunDefaults } from "./deps.ts";
import { defaultMakeModel } from "../runtime/make_model.ts";
import { loadConfig, type ReinsConfig } from "../runtime/config.ts";
import { openProcessTools } from "../runtime/process_tools.ts";
import { SCRIPTED_CHUNK_MS } from "../testing/scripted_provider.ts";

/** The server's settings, from the environment. */
export interface ServiceConfig {
  /** `HOST` (default 127.0.0.1). */
  host: string;
  /** `PORT` (default 8000). */
  port: number;
  /** `REINS_TOKEN`. */
  token?: string;
  /** `REINS_SCRIPTED=1` (default on locally, off on Deno Deploy). */
  scripted: boolean;
  /** Running on Deno Deploy (`DENO_DEPLOYMENT_ID` is set). */
  deploy: boolean;
  /** `REINS_KV_PATH` (default `.reins/runs.sqlite`); unused on Deploy. */
  kvPath?: string;
  /** `REINS_WORKSPACES` (default `.reins/workspaces`, `/tmp/reins-workspaces` on Deploy). */
  workspaceRoot: string;
  /** `REINS_SCAN_MS`: duration of `scan_archive` (default 3000). */
  scanMs?: number;
  /** `REINS_CONFIG`: the config file (default `reins.jsonc` in the working directory, if any). */
  configPath?: string;
  /** `REINS_SCRIPTED_CHUNK_MS`: pause between streamed chunks of scripted replies (default 20). */
  chunkMs: number;
  /** `REINS_LEASE_MS`: lease time of an executing run (default 30000); a killed process's runs wait this long. */
  leaseMs?: number;
  /** `REINS_SWEEP_MS`: period of the local sweep timer (default 5000; 0 for none). */
  sweepMs?: number;
}

function msVar(env: Record<string, string | undefined>, name: string, min: number) {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < min) {
    throw new TypeError(`${name}: expected milliseconds (>= ${min}), got "${raw}"`);
  }
  return ms;
}

/**
 * Reads the {@link ServiceConfig} (throws `TypeError` naming a bad variable).
 *
 * @example
 * ```ts
 * import { configFromEnv } from "./service.ts";
 * console.log(configFromEnv({ PORT: "9000" }).port); // 9000
 * ```
 */
export function configFromEnv(
  env: Record<string, string | undefined> = Deno.env.toObject(),
): ServiceConfig {
  const deploy = Boolean(env.DENO_DEPLOYMENT_ID);
  const port = Number(env.PORT ?? "8000");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`PORT: expected a port number, got "${env.PORT}"`);
  }
  const scanMs = env.REINS_SCAN_MS === undefined ? undefined : Number(env.REINS_SCAN_MS);
  if (scanMs !== undefined && !(scanMs >= 0)) {
    throw new TypeError(`REINS_SCAN_MS: expected milliseconds, got "${env.REINS_SCAN_MS}"`);
  }
  const chunkMs = Number(env.REINS_SCRIPTED_CHUNK_MS ?? String(SCRIPTED_CHUNK_MS));
  if (!(chunkMs >= 0) || env.REINS_SCRIPTED_CHUNK_MS?.trim() === "") {
    throw new TypeError(
      `REINS_SCRIPTED_CHUNK_MS: expected milliseconds, got "${env.REINS_SCRIPTED_CHUNK_MS}"`,
    );
  }
  return {
    host: env.HOST || "127.0.0.1",
    port,
    token: env.REINS_TOKEN || undefined,
    scripted: env.REINS_SCRIPTED === undefined ? !deploy : env.REINS_SCRIPTED === "1",
    deploy,
    kvPath: env.REINS_KV_PATH || undefined,
    workspaceRoot: env.REINS_WORKSPACES ||
      (deploy ? "/tmp/reins-workspaces" : ".reins/workspaces"),
    scanMs,
    configPath: env.REINS_CONFIG || undefined,
    chunkMs,
    leaseMs: msVar(env, "REINS_LEASE_MS", 1),
    sweepMs: msVar(env, "REINS_SWEEP_MS", 0),
  };
}

/**
 * What the server takes from `reins.jsonc`, the environment winning:
 * `LLM_BASE_URL` over `baseUrl`, `LLM_MODEL` over `model`, the key from
 * the variable `apiKeyEnv` names (default `LLM_API_KEY`); `prices`, `limits`,
 * `budgetMode`, `dedupe`, `toolErrors` and `context` become the defaults of new runs
 * (a request's `options` and `limits` win). `workspace` is the CLI's only:
 * server runs get one workspace per tree under `REINS_WORKSPACES`.
 *
 * @example
 * ```ts
 * import { serverSettings } from "./service.ts";
 * const s = serverSettings({ model: "m", limits: { maxTurns: 5 } }, {});
 * console.log(s.defaultModel, s.runDefaults.limits); // m { maxTurns: 5 }
 * ```
 */
export function serverSettings(
  file: ReinsConfig,
  env: Record<string, string | undefined> = Deno.env.toObject(),
): { baseUrl?: string; apiKey?: string; defaultModel?: string; runDefaults: RunDefaults } {
  const { prices, budgetMode, dedupe, toolErrors, context, limits } = file;
  const settings = Object.fromEntries(
    Object.entries({ prices, budgetMode, dedupe, toolErrors, context }).filter(([, v]) =>
      v !== undefined
    ),
  );
  return {
    baseUrl: env.LLM_BASE_URL || file.baseUrl,
    apiKey: env[file.apiKeyEnv ?? "LLM_API_KEY"] || undefined,
    defaultModel: env.LLM_MODEL || file.model,
    runDefaults: { settings, ...(limits ? { limits } : {}) },
  };
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
 * import { configFromEnv, listenRefusal } from "./service.ts";
 * console.log(listenRefusal(configFromEnv({ HOST: "0.0.0.0" })));
 * ```
 */
export function listenRefusal(
  config: Pick<ServiceConfig, "host" | "token" | "deploy">,
): string | null {
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
  /** The tools of `reins.jsonc`'s MCP servers every run executed here gets (closed by close). */
  readonly tools: readonly AnyTool[];
  /**
   * On eviction or shutdown: ends event streams, stops the worker (its runs
   * checkpointed, `running` again, leases released: another process resumes
   * them at once), closes the KV and the MCP servers of `reins.jsonc`.
   */
  close(): Promise<void>;
}

/**
 * Opens the MCP servers of `reins.jsonc` (`mcpServers`: their tools go to
 * every run this process executes) and the KV (retrying "database is locked";
 * `Deno.openKv()` on Deploy unless `REINS_KV_PATH` is set), starts the worker
 * and creates the app.
 *
 * @example
 * ```ts
 * import { configFromEnv, startService } from "./service.ts";
 * const service = await startService({ ...configFromEnv({}), kvPath: ":memory:" });
 * await service.close();
 * ```
 */
export async function startService(config: ServiceConfig): Promise<Service> {
  // The same file as the CLI's (a bad one is an error before anything starts).
  const raw = await loadConfig(config.configPath);
  const file = serverSettings(raw);
  // Its MCP servers, once for the process: every run executed here gets their tools.
  const mcp = await openProcessTools(raw.mcpServers);
  let kv: Deno.Kv;
  try {
    // On Deploy, the app's database unless a path (or KV Connect URL) is given.
    kv = config.deploy && !config.kvPath
      ? await openKv()
      : await openKv(config.kvPath ?? await defaultKvPath());
  } catch (e) {
    await mcp.close();
    throw e;
  }
  const owner = `w${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new KvRunStore(kv, { owner, leaseMs: config.leaseMs });
  const closing = new AbortController();
  const deps = {
    kv,
    store,
    token: config.token,
    scripted: config.scripted,
    makeModel: defaultMakeModel({
      scripted: config.scripted,
      baseUrl: file.baseUrl,
      apiKey: file.apiKey,
      chunkMs: config.chunkMs,
    }),
    ...(file.defaultModel ? { defaultModel: file.defaultModel } : {}),
    runDefaults: file.runDefaults,
    workspaceRoot: config.workspaceRoot,
    scan: config.scanMs === undefined ? {} : { ms: config.scanMs },
    chunkMs: config.chunkMs,
    closing: closing.signal,
    extraTools: mcp.tools,
  };
  const worker = startWorker(deps, { everyMs: config.sweepMs });
  const app = createApp({ ...deps, schedule: worker.schedule, onRequest: worker.nudge });
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
