/**
 * A worker process for your agents, `runWorker(Deno.args, { agents })` (this
 * repository's `deno task worker` is one, over the demo agents): it executes
 * runs from a KV with no HTTP, beside (or instead of) the servers: it sweeps for runs no one executes (stored `running`, no
 * live lease), claims each through its lease and executes it, checkpointing to
 * the KV. Any number of workers may share a KV; on SIGINT or SIGTERM a worker
 * hands its runs over (checkpointed, `running` again, leases released).
 *
 * The KV: `--kv` (a file, `:memory:`, or a KV Connect URL such as
 * `https://api.deno.com/v2/databases/<id>/connect` with `DENO_KV_ACCESS_TOKEN`
 * set), else `REINS_KV_PATH`, else `.reins/runs.sqlite`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { Model } from "../harness/model.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { defaultKvPath, isKvUrl, KvOpenError, openKv } from "../kv/open_kv.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { startWorker } from "../runtime/worker.ts";
import { ConfigError, loadConfig } from "../runtime/config.ts";
import { type ModelSettings, modelSettings, readEnv, type ReinsEnv } from "../runtime/env.ts";
import { defaultMakeModel } from "../runtime/make_model.ts";
import { MAX_TIMER_MS } from "../harness/sleep.ts";
import { openProcessTools, type ProcessTools } from "../runtime/process_tools.ts";
import { McpStartError } from "../mcp/mcp_start_error.ts";
import { messageOf } from "../harness/message_of.ts";

/** What a worker process serves: its agents, and how it makes their models. */
export interface WorkerCliOptions {
  /** The agents it executes runs of (others are left alone). */
  agents: readonly Agent[];
  /** The agent of a stored run that names none. */
  defaultAgent?: string;
  /** Makes the model factory (`remoteKv`: the KV is a KV Connect URL). */
  models?: (settings: ModelSettings & { remoteKv: boolean }) => (name: string) => Model;
  /** The model of runs whose agent and settings name none. */
  defaultModel?: string | undefined;
}

const USAGE = `deno task worker [--kv PATH_OR_URL] [--lease-ms N] [--sweep-ms N]

Executes reins runs from a KV, with no HTTP: every --sweep-ms it looks for runs
stored running with no live lease, claims each through its lease and executes it.

  --kv PATH_OR_URL  the KV: a file, :memory:, or a KV Connect URL
                    (https://api.deno.com/v2/databases/<id>/connect; the token
                    comes from DENO_KV_ACCESS_TOKEN); default REINS_KV_PATH,
                    else .reins/runs.sqlite
  --lease-ms N      lease time of a run it executes (default REINS_LEASE_MS, else 30000)
  --sweep-ms N      how often it looks for work (default REINS_SWEEP_MS, else 2000)
  --help            this text

Environment: LLM_BASE_URL, LLM_API_KEY, LLM_MODEL (the model runs call; over
reins.jsonc's), REINS_WORKSPACES (default .reins/workspaces: the trees' folders),
REINS_CONFIG (default reins.jsonc, if any: the tools of its mcpServers go to every run).
It executes only runs of the agents it serves; others are left to other processes.
SIGINT or SIGTERM: stop taking work, hand executing runs over, exit.`;

function positiveMs(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) {
    throw new TypeError(`${name}: expected milliseconds from 1 to ${MAX_TIMER_MS}, got "${raw}"`);
  }
  return ms;
}

interface WorkerArgs {
  kv?: string | undefined;
  leaseMs?: number | undefined;
  sweepMs?: number | undefined;
  help: boolean;
  env: ReinsEnv;
}

function parseWorkerArgs(args: string[]): WorkerArgs {
  const { values } = parseArgs({
    args,
    options: {
      kv: { type: "string" },
      "lease-ms": { type: "string" },
      "sweep-ms": { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  const env = readEnv();
  return {
    kv: values.kv,
    leaseMs: positiveMs(values["lease-ms"], "--lease-ms") ?? env.leaseMs,
    sweepMs: positiveMs(values["sweep-ms"], "--sweep-ms") ?? (env.sweepMs || undefined),
    help: values.help ?? false,
    env,
  };
}

/** The MCP servers of reins.jsonc (opened once: every run executed here gets their tools) and the KV. */
async function openResources(
  path: string,
  env: ReinsEnv,
): Promise<{ mcp: ProcessTools; kv: Deno.Kv; settings: ModelSettings } | string> {
  let mcp: ProcessTools;
  let settings: ModelSettings;
  try {
    const config = await loadConfig(env.configPath);
    settings = modelSettings(config);
    mcp = await openProcessTools(config.mcpServers);
  } catch (e) {
    // A bad reins.jsonc, or a server of it that does not start: one line.
    if (!(e instanceof ConfigError || e instanceof McpStartError)) throw e;
    return e.message;
  }
  try {
    return { mcp, kv: await openKv(path), settings };
  } catch (e) {
    await mcp.close();
    // One line, like the CLI's: a path it cannot open is the user's to fix.
    if (!(e instanceof KvOpenError)) throw e;
    return e.message;
  }
}

/** Resolves with the signal that asked the process to stop. */
function signalled(): Promise<string> {
  const { promise, resolve } = Promise.withResolvers<string>();
  const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const fn = () => resolve(signal);
    Deno.addSignalListener(signal, fn);
    return [signal, fn] as const;
  });
  return promise.finally(() => {
    for (const [s, fn] of listeners) Deno.removeSignalListener(s, fn);
  });
}

/**
 * Runs a worker over `options.agents` until SIGINT or SIGTERM; resolves
 * with the exit code.
 *
 * @example
 * ```ts ignore
 * import { runWorker } from "./worker.ts";
 * import { support } from "./agents.ts";
 * Deno.exitCode = await runWorker(Deno.args, { agents: [support] });
 * ```
 */
export async function runWorker(args: string[], options: WorkerCliOptions): Promise<number> {
  let parsed: WorkerArgs;
  try {
    parsed = parseWorkerArgs(args);
  } catch (e) {
    console.error(`reins worker: ${messageOf(e)} (see --help)`);
    return 2;
  }
  if (parsed.help) return (console.log(USAGE), 0);
  const path = parsed.kv || await defaultKvPath(parsed.env.kvPath);
  const remoteKv = isKvUrl(path);
  const opened = await openResources(path, parsed.env);
  if (typeof opened === "string") return (console.error(`reins worker: ${opened}`), 1);
  const { mcp, kv, settings } = opened;
  const makeModel = (options.models ?? defaultMakeModel)({ ...settings, remoteKv });
  const owner = `worker${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new KvRunStore(kv, { owner, leaseMs: parsed.leaseMs });
  const agents = agentRegistry(options.agents, {
    defaultAgent: options.defaultAgent,
    extraTools: mcp.tools,
    resolveModel: makeModel,
  });
  const sweepMs = parsed.sweepMs ?? 2_000;
  const worker = startWorker({
    kv,
    store,
    agents,
    makeModel,
    defaultModel: settings.model ?? options.defaultModel,
    prices: settings.prices,
    workspaceRoot: parsed.env.workspaceRoot,
  }, { everyMs: sweepMs });
  const where = remoteKv ? path.replace(/\/\/[^/@]*@/, "//") : path;
  const tools = mcp.tools.length ? `, ${mcp.tools.length} MCP tool(s)` : "";
  console.log(
    `reins worker: executing runs of ${agents.names.join(", ")} from ${where} as ${owner} ` +
      `(sweep every ${sweepMs} ms, lease ${store.leaseMs} ms${tools})`,
  );
  const signal = await signalled();
  const t0 = performance.now();
  const executing = worker.executor.executing;
  await worker.stop();
  kv.close();
  await mcp.close();
  const took = Math.round(performance.now() - t0);
  console.log(`reins worker: ${signal}: handed over ${executing} run(s) in ${took} ms`);
  return 0;
}
