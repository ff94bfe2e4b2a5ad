/**
 * Serving your own agents durably, in one call: `serve({ agents })` at the
 * top level of your main module (Deno Deploy, `deno run`), or
 * `export default serveHandler({ agents })` for `deno serve --parallel`.
 * Everything a reins server does: runs in Deno KV (`Deno.openKv()` on
 * Deploy, else `REINS_KV_PATH` or `.reins/runs.sqlite`), leases, sweeps, a
 * `Deno.cron` sweep registered while your module is evaluated (Deploy only
 * registers crons found then), a hand-over of executing runs on SIGINT or
 * SIGTERM (and the cron stopped), `REINS_TOKEN`, the inspector, the MCP
 * servers of `reins.jsonc`.
 *
 * @module
 */
import { ReinsError } from "../harness/errors.ts";
import { settlesWithin } from "../harness/settles_within.ts";
import { messageOf } from "../harness/message_of.ts";
import { type Env, readEnv, type ReinsEnv } from "../runtime/env.ts";
import { listenRefusal, type ServeOptions, type Service, startService } from "./service.ts";
import { isLoopback } from "./service.ts";

/** A server started by {@link serve}. */
export interface Serving {
  /** The started service, or null when it refused to start or to listen (the reason was printed). */
  readonly service: Promise<Service | null>;
  /** Resolves with the exit code once the server stopped (0) or refused to start (1). */
  readonly finished: Promise<number>;
  /** Hands executing runs over and stops, as on SIGTERM. */
  shutdown(): Promise<void>;
}

/** Options of {@link serve}: the agents, and (for tests) the environment to read. */
export interface ServeAgentsOptions extends ServeOptions {
  /** The environment (default `Deno.env`). */
  env?: Env | undefined;
}

/** Registers the sweep cron now (synchronously: Deploy finds crons while the module evaluates). */
function sweepCron(live: { service?: Service | null }): AbortController {
  const cron = new AbortController();
  if (typeof Deno.cron !== "function") {
    // A project whose deno.json lacks "cron" in "unstable": on Deploy its killed runs would
    // wait for the next request's sweep; say so instead of running without it silently.
    console.error('reins: no sweep cron (Deno.cron needs "cron" in deno.json "unstable")');
  } else {
    // Every minute, any instance claims runs whose executor went away.
    Deno.cron("reins-sweep", "* * * * *", { signal: cron.signal }, async () => {
      await live.service?.worker.sweep(true);
    });
  }
  return cron;
}

/** Reads the environment and starts the service, or prints why not and returns null. */
async function startOrRefuse(
  options: ServeOptions,
  env: Env | undefined,
  cron: AbortController,
): Promise<{ service: Service; config: ReinsEnv } | null> {
  // Refusing to start: one line, and the sweep's cron must not keep the process alive.
  const refuse = (why: string) => (cron.abort(), console.error(`reins: ${why}`), null);
  try {
    const config = readEnv(env);
    const refusal = listenRefusal(config);
    if (refusal) return refuse(refusal);
    return { service: await startService(options, config), config };
  } catch (e) {
    // REINS_LEASE_MS=abc, a bad reins.jsonc, an MCP server of it that does not start, a
    // KV path it cannot open, two agents of one name, a missing permission: one line.
    if (e instanceof ReinsError || e instanceof TypeError) return refuse(e.message);
    if (denied(e)) return refuse(`${e.message} (${PERMISSIONS})`);
    cron.abort();
    throw e;
  }
}

/**
 * Listens, or says why not in one line (the port is taken, say) and closes
 * the service: its KV handle and worker would keep the process alive, silent.
 */
async function listen(
  s: { service: Service; config: ReinsEnv },
  cron: AbortController,
): Promise<Deno.HttpServer | null> {
  const { host, port, token } = s.config;
  try {
    return Deno.serve({
      hostname: host,
      port,
      onListen: (addr) => {
        const auth = token ? "bearer token required" : "no auth (loopback)";
        console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (${auth})`);
      },
    }, s.service.app.fetch);
  } catch (e) {
    cron.abort();
    await s.service.close();
    const why = e instanceof Deno.errors.AddrInUse
      ? "the address is in use (another server? set PORT)"
      : messageOf(e);
    console.error(`reins: cannot listen on ${host}:${port}: ${why}`);
    return null;
  }
}

/** What a server needs of Deno's permissions (`--allow-run` too for MCP servers over stdio). */
const PERMISSIONS =
  "serve() needs --allow-net --allow-env --allow-read --allow-write --allow-sys=hostname";

/** A permission the process was not given. */
function denied(e: unknown): e is Error {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
}

/** How long open responses may take to finish once the server stops taking requests. */
const SHUTDOWN_GRACE_MS = 2000;

/** SIGINT and SIGTERM call `fn` until the returned function removes them. */
function onSignals(fn: (signal: string) => void): () => void {
  const listeners: [Deno.Signal, () => void][] = [
    ["SIGTERM", () => fn("SIGTERM")],
    ["SIGINT", () => fn("SIGINT")],
  ];
  for (const [signal, listener] of listeners) {
    try {
      Deno.addSignalListener(signal, listener);
    } catch {
      // Signals are not available everywhere (Deno Deploy); the platform stops the isolate.
    }
  }
  return () => {
    for (const [signal, listener] of listeners) {
      try {
        Deno.removeSignalListener(signal, listener);
      } catch {
        // see above
      }
    }
  };
}

/**
 * Serves `options.agents` on `HOST`:`PORT` (default 127.0.0.1:8000) until
 * SIGINT or SIGTERM, which hand executing runs over (checkpointed, `running`
 * again, leases released) and stop the cron; responses still open 2 s
 * later (an event stream a client keeps) do not hold the process: it exits
 * (Deno Deploy's SIGKILL comes 5 s after SIGINT). Refuses to listen beyond
 * loopback without `REINS_TOKEN`. Call it at the top level of your main
 * module: the cron is registered before it returns. Sets `Deno.exitCode`.
 *
 * @example
 * ```ts ignore
 * import { serve } from "@reins/reins/server";
 * import { support } from "./agents.ts";
 * serve({ agents: [support] });
 * ```
 */
export function serve(options: ServeAgentsOptions): Serving {
  const live: { service?: Service | null } = {};
  const cron = sweepCron(live);
  const { promise: stopped, resolve: stop } = Promise.withResolvers<string>();
  const started = startOrRefuse(options, options.env, cron);
  // Listening, or null: refused at start, or the address could not be taken.
  const listening = started.then(async (s) => {
    const server = s && await listen(s, cron);
    return s && server ? { s, server } : null;
  });
  const service = listening.then((l) => (live.service = l?.s.service ?? null));
  const finished = listening.then((l) =>
    l ? served(l.s.service, l.server, cron, stopped, stop) : 1
  );
  finished.then((code) => (Deno.exitCode = code), () => (Deno.exitCode = 1));
  return {
    service,
    finished,
    shutdown: async () => (stop("shutdown"), void await finished),
  };
}

/** Serves until a signal, `shutdown()` or the server's end; then hands the runs over. */
async function served(
  service: Service,
  server: Deno.HttpServer,
  cron: AbortController,
  stopped: Promise<string>,
  stop: (why: string) => void,
): Promise<number> {
  const removeSignals = onSignals(stop);
  const why = await Promise.race([stopped, server.finished.then(() => "")]);
  const t0 = performance.now();
  const executing = service.worker.executor.executing;
  if (why) console.log(`reins: ${why}: handing over ${executing} run(s) and shutting down`);
  cron.abort();
  const handedOver = service.close();
  // A response still streaming (a mounted handler's, a client that never leaves) holds
  // a graceful shutdown until its client goes; Deno Deploy's SIGKILL comes 5 s after SIGINT.
  const closed = await settlesWithin(server.shutdown(), SHUTDOWN_GRACE_MS);
  await handedOver;
  removeSignals();
  // Only the process's own stop ends it: a caller's shutdown() leaves the responses be.
  const bySignal = why === "SIGINT" || why === "SIGTERM";
  if (!closed) {
    const what = bySignal ? "exiting" : "left to their clients";
    console.log(`reins: responses still open after ${SHUTDOWN_GRACE_MS} ms: ${what}`);
  }
  console.log(`reins: stopped in ${Math.round(performance.now() - t0)} ms`);
  // Runs handed over, nothing left to wait for (Deno's server cannot cut its connections
  // once a graceful shutdown began).
  if (!closed && bySignal) Deno.exit(0);
  return 0;
}

/**
 * The handler of `deno serve --parallel`: each isolate evaluates your module,
 * so each opens its own KV handle and runs its own worker; a Stop, an
 * approval or an event stream may land on any isolate. Registers the cron
 * when called; on SIGINT or SIGTERM, runs are handed over.
 *
 * @example
 * ```ts ignore
 * import { serveHandler } from "@reins/reins/server";
 * import { support } from "./agents.ts";
 * export default serveHandler({ agents: [support] });
 * ```
 */
export function serveHandler(options: ServeAgentsOptions): Deno.ServeDefaultExport {
  const live: { service?: Service | null } = {};
  const cron = sweepCron(live);
  const started = startOrRefuse(options, options.env, cron).then((s) => {
    if (!s) Deno.exit(1);
    live.service = s.service;
    const remove = onSignals(() => {
      remove();
      // `deno serve` shuts the HTTP server down itself; the cron, the runs and
      // the KV handle would keep the isolate alive. Runs are handed over.
      cron.abort();
      s.service.close().catch((e) => console.error("reins: shutdown failed:", e));
    });
    return s;
  });
  return {
    fetch: async (request) => (await started).service.app.fetch(request),
    onListen(addr: Deno.Addr) {
      if (addr.transport !== "tcp" && addr.transport !== "udp") return;
      void started.then((s) => {
        // `deno serve --host` may differ from HOST: check what was actually bound.
        if (!s.config.token && !isLoopback(addr.hostname)) {
          console.error(`reins: refusing to serve on ${addr.hostname} without REINS_TOKEN`);
          Deno.exit(1);
        }
        console.log(`reins: listening on http://${addr.hostname}:${addr.port}/ (deno serve)`);
      });
    },
  };
}
