/**
 * `deno task worker`: executes runs from a KV with no HTTP, beside (or instead
 * of) the servers: it sweeps for runs no one executes (stored `running`, no
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
import { KvRunStore } from "../kv/kv_run_store.ts";
import { defaultKvPath, isKvUrl, KvOpenError, openKv } from "../kv/open_kv.ts";
import { startWorker } from "../runtime/worker.ts";
import { ConfigError, loadConfig } from "../runtime/config.ts";
import { openProcessTools, type ProcessTools } from "../runtime/process_tools.ts";
import { McpStartError } from "../mcp/mcp_start_error.ts";

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

Environment: LLM_BASE_URL, LLM_API_KEY, LLM_MODEL (the model runs call),
REINS_SCRIPTED=1 (scenario runs play the scripted provider; default on for a
file, off for a URL), REINS_WORKSPACES (default .reins/workspaces), REINS_SCAN_MS,
REINS_CONFIG (default reins.jsonc, if any: the tools of its mcpServers go to every run).
SIGINT or SIGTERM: stop taking work, hand executing runs over, exit.`;

function positiveMs(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new TypeError(`${name}: expected milliseconds > 0, got "${raw}"`);
  }
  return ms;
}

/**
 * Runs the worker until SIGINT or SIGTERM; resolves with the exit code.
 *
 * @example
 * ```ts ignore
 * import { main } from "./worker.ts";
 * Deno.exitCode = await main(["--kv", ":memory:"]);
 * ```
 */
export async function main(args: string[]): Promise<number> {
  let values;
  let leaseMs: number | undefined;
  let sweepMs: number | undefined;
  let scanMs: number | undefined;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        kv: { type: "string" },
        "lease-ms": { type: "string" },
        "sweep-ms": { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
    leaseMs = positiveMs(values["lease-ms"] ?? Deno.env.get("REINS_LEASE_MS"), "--lease-ms");
    sweepMs = positiveMs(values["sweep-ms"] ?? Deno.env.get("REINS_SWEEP_MS"), "--sweep-ms");
    const scan = Deno.env.get("REINS_SCAN_MS");
    scanMs = scan === undefined ? undefined : positiveMs(scan, "REINS_SCAN_MS");
  } catch (e) {
    console.error(`reins worker: ${e instanceof Error ? e.message : e} (see --help)`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const path = values.kv || await defaultKvPath();
  const remote = isKvUrl(path);
  const scriptedEnv = Deno.env.get("REINS_SCRIPTED");
  const scripted = scriptedEnv === undefined ? !remote : scriptedEnv === "1";
  let mcp: ProcessTools;
  try {
    // The MCP servers of reins.jsonc, opened once: every run executed here gets their tools.
    mcp = await openProcessTools((await loadConfig(Deno.env.get("REINS_CONFIG"))).mcpServers);
  } catch (e) {
    // A bad reins.jsonc, or a server of it that does not start: one line.
    if (!(e instanceof ConfigError || e instanceof McpStartError)) throw e;
    console.error(`reins worker: ${e.message}`);
    return 1;
  }
  let kv: Deno.Kv;
  try {
    kv = await openKv(path);
  } catch (e) {
    await mcp.close();
    // One line, like the CLI's: a path it cannot open is the user's to fix.
    if (!(e instanceof KvOpenError)) throw e;
    console.error(`reins worker: ${e.message}`);
    return 1;
  }
  const owner = `worker${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new KvRunStore(kv, { owner, leaseMs });
  const worker = startWorker({
    kv,
    store,
    scripted,
    workspaceRoot: Deno.env.get("REINS_WORKSPACES") || ".reins/workspaces",
    scan: scanMs === undefined ? {} : { ms: scanMs },
    extraTools: mcp.tools,
  }, { everyMs: sweepMs ?? 2_000 });
  const where = remote ? path.replace(/\/\/[^/@]*@/, "//") : path;
  console.log(
    `reins worker: executing runs from ${where} as ${owner} (sweep every ${
      sweepMs ?? 2_000
    } ms, lease ${store.leaseMs} ms${scripted ? ", scripted scenarios" : ""}${
      mcp.tools.length ? `, ${mcp.tools.length} MCP tool(s)` : ""
    })`,
  );

  const { promise: signalled, resolve } = Promise.withResolvers<string>();
  const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const fn = () => resolve(signal);
    Deno.addSignalListener(signal, fn);
    return [signal, fn] as const;
  });
  const signal = await signalled;
  const t0 = performance.now();
  const executing = worker.executor.executing;
  await worker.stop();
  kv.close();
  await mcp.close();
  for (const [s, fn] of listeners) Deno.removeSignalListener(s, fn);
  console.log(
    `reins worker: ${signal}: handed over ${executing} run(s) in ${
      Math.round(performance.now() - t0)
    } ms`,
  );
  return 0;
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
