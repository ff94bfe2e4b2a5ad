/**
 * Entry point of `deno task serve:parallel` (`deno serve --parallel
 * server/serve.ts`): each worker isolate evaluates this module, so each opens
 * its own KV handle on the same file and runs its own worker (executor and
 * sweeps); the default export's `fetch` serves the app. A Stop, an approval
 * or an event stream may land on any worker while the run executes on another.
 *
 * @module
 */
import { configFromEnv, isLoopback, listenRefusal, type Service, startService } from "./service.ts";

/** Set once the service has started (a cron tick may come first). */
const live: { service?: Service } = {};
const cron = new AbortController();
// At module top level, before serving (as Deno Deploy requires): every minute,
// claim runs whose executor went away.
if (typeof Deno.cron === "function") {
  Deno.cron("reins-sweep", "* * * * *", { signal: cron.signal }, async () => {
    await live.service?.worker.sweep(true);
  });
}

const config = configFromEnv();
const refusal = listenRefusal(config);
if (refusal) {
  console.error(`reins: ${refusal}`);
  Deno.exit(1);
}
const started = await startService(config);
live.service = started;

const close = () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.removeSignalListener(signal, close);
    } catch {
      // not available here
    }
  }
  // `deno serve` shuts the HTTP server down itself; the cron, the runs and
  // the KV handle would keep the isolate alive. Runs are handed over.
  cron.abort();
  started.close().catch((e) => console.error("reins: shutdown failed:", e));
};
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  try {
    Deno.addSignalListener(signal, close);
  } catch {
    // not available here
  }
}

/** The `deno serve` handler: the app's `fetch`, and a check of the address bound. */
export default {
  fetch: started.app.fetch,
  onListen(addr: Deno.Addr) {
    if (addr.transport !== "tcp" && addr.transport !== "udp") return;
    // `deno serve --host` may differ from HOST: check what was actually bound.
    if (!config.token && !isLoopback(addr.hostname)) {
      console.error(`reins: refusing to serve on ${addr.hostname} without REINS_TOKEN`);
      Deno.exit(1);
    }
    console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (deno serve)`);
  },
} satisfies Deno.ServeDefaultExport;
