/**
 * Entry point of `deno task serve:parallel` (`deno serve --parallel
 * server/serve.ts`): each worker isolate evaluates this module, so each opens
 * its own KV handle on the same file and starts its own queue listener; the
 * default export's `fetch` serves the app. A Stop, an approval or an event
 * stream may land on any worker while the run executes on another.
 *
 * @module
 */
import { configFromEnv, isLoopback, listenRefusal, startService } from "./service.ts";

const config = configFromEnv();
const refusal = listenRefusal(config);
if (refusal) {
  console.error(`reins: ${refusal}`);
  Deno.exit(1);
}
const service = await startService(config);

const close = () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.removeSignalListener(signal, close);
    } catch {
      // not available here
    }
  }
  // `deno serve` shuts the HTTP server down itself; the queue listener and
  // the KV handle would keep the worker alive.
  service.close().catch((e) => console.error("reins: shutdown failed:", e));
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
  fetch: service.app.fetch,
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
