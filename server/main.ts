/**
 * `deno task serve`: the reins API on `HOST`:`PORT` (default 127.0.0.1:8000),
 * runs in Deno KV (`REINS_KV_PATH`, default `.reins/runs.sqlite`; the
 * project's KV on Deno Deploy, where this is the entry point). Refuses to
 * listen beyond loopback without `REINS_TOKEN`; shuts down cleanly on
 * SIGTERM and SIGINT (runs it was executing resume on the next start).
 *
 * @module
 */
import { configFromEnv, listenRefusal, startService } from "./service.ts";
import { ReinsError } from "../harness/errors.ts";

async function main(): Promise<number> {
  const config = configFromEnv();
  const refusal = listenRefusal(config);
  if (refusal) {
    console.error(`reins: ${refusal}`);
    return 1;
  }
  let service;
  try {
    service = await startService(config);
  } catch (e) {
    // A bad reins.jsonc (or KV path) is one line, not a stack trace.
    if (e instanceof ReinsError) return (console.error(`reins: ${e.message}`), 1);
    throw e;
  }
  const server = Deno.serve({
    hostname: config.host,
    port: config.port,
    onListen: (addr) => {
      const auth = config.token ? "bearer token required" : "no auth (loopback)";
      const v1 = config.scripted ? ", scripted provider at /v1" : "";
      console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (${auth}${v1})`);
    },
  }, service.app.fetch);

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    stopping ??= (async () => {
      console.log(`reins: ${signal}: shutting down`);
      await Promise.all([server.shutdown(), service.close()]);
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
