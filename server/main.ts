/**
 * `deno task serve`: the reins API on `HOST`:`PORT` (default 127.0.0.1:8000),
 * runs in Deno KV (`REINS_KV_PATH`, default `.reins/runs.sqlite`; the
 * project's KV on Deno Deploy, where this is the entry point). Refuses to
 * listen beyond loopback without `REINS_TOKEN`. On SIGINT or SIGTERM (Deno
 * Deploy's eviction notice) it hands its runs over: each is checkpointed,
 * marked `running` again and its lease released, so another instance (or a
 * `deno task worker`) resumes it at once.
 *
 * @module
 */
import { configFromEnv, listenRefusal, type Service, startService } from "./service.ts";
import { ReinsError } from "../harness/errors.ts";

let service: Service | undefined;
const cron = new AbortController();
// At module top level, before serving: Deno Deploy finds crons by evaluating this
// module. Every minute, any instance claims runs whose executor went away.
if (typeof Deno.cron === "function") {
  Deno.cron("reins-sweep", "* * * * *", { signal: cron.signal }, async () => {
    await service?.worker.sweep(true);
  });
}

/**
 * Serves the API until SIGINT or SIGTERM; resolves with the exit code.
 *
 * @example
 * ```ts ignore
 * import { main } from "./main.ts";
 * Deno.exitCode = await main();
 * ```
 */
export async function main(): Promise<number> {
  // Refusing to start: one line, exit 1, and the sweep's cron must not keep
  // the process alive (it was registered before we knew).
  const refuse = (why: string) => (cron.abort(), console.error(`reins: ${why}`), 1);
  let config;
  try {
    config = configFromEnv();
  } catch (e) {
    // A bad variable (REINS_LEASE_MS=abc, say) is a TypeError naming it.
    if (e instanceof TypeError) return refuse(e.message);
    throw e;
  }
  const refusal = listenRefusal(config);
  if (refusal) return refuse(refusal);
  try {
    service = await startService(config);
  } catch (e) {
    // A bad reins.jsonc, an MCP server of it that does not start, a KV path
    // it cannot open: one line, not a stack trace.
    if (e instanceof ReinsError) return refuse(e.message);
    cron.abort();
    throw e;
  }
  const started = service;
  const server = Deno.serve({
    hostname: config.host,
    port: config.port,
    onListen: (addr) => {
      const auth = config.token ? "bearer token required" : "no auth (loopback)";
      const v1 = config.scripted ? ", scripted provider at /v1" : "";
      console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (${auth}${v1})`);
    },
  }, started.app.fetch);

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    stopping ??= (async () => {
      const t0 = performance.now();
      const executing = started.worker.executor.executing;
      console.log(`reins: ${signal}: handing over ${executing} run(s) and shutting down`);
      cron.abort();
      await Promise.all([server.shutdown(), started.close()]);
      console.log(`reins: stopped in ${Math.round(performance.now() - t0)} ms`);
    })();
  };
  const listeners: [Deno.Signal, () => void][] = [
    ["SIGTERM", () => shutdown("SIGTERM")],
    ["SIGINT", () => shutdown("SIGINT")],
  ];
  for (const [signal, fn] of listeners) {
    try {
      Deno.addSignalListener(signal, fn);
    } catch {
      // Signals are not available everywhere (Deno Deploy); the platform stops the isolate.
    }
  }
  await server.finished;
  await stopping;
  for (const [signal, fn] of listeners) {
    try {
      Deno.removeSignalListener(signal, fn);
    } catch {
      // see above
    }
  }
  return 0;
}

if (import.meta.main) Deno.exitCode = await main();
