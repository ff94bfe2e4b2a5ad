/**
 * The HTTP API of reins as a Hono app: runs, their live events, approvals and
 * Stop. Runs execute in the background (`deps.schedule` starts one on this
 * instance; sweeps anywhere claim runs no one executes, see `startWorker`),
 * so the app itself holds no run in memory and any number of workers or
 * isolates can serve it over one KV.
 *
 * @module
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { bearerAuth } from "./auth.ts";
import { resolveDeps, type ServerDeps } from "./deps.ts";
import { HttpError, onError } from "./errors.ts";
import { registerInspectorPages, registerInspectorParts } from "./inspector.ts";
import { openApiDocument } from "./openapi.ts";
import { registerAgentRoutes } from "./routes_agents.ts";
import { registerControlRoutes } from "./routes_control.ts";
import { registerConversationRoutes } from "./routes_conversation.ts";
import { registerEventRoutes } from "./routes_events.ts";
import { registerRunRoutes } from "./routes_runs.ts";

export type { ServerDeps } from "./deps.ts";
export { startWorker, type Worker } from "../runtime/worker.ts";

/** The response header naming the worker (store owner) that answered. */
export const WORKER_HEADER = "x-reins-worker";

/**
 * Largest request body of the API, in bytes (413 beyond, refused without
 * reading the rest). The largest valid body, a 100,000-character task and
 * system prompt written as `\uXXXX` escapes, is about 1.2 MB.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** The app's fetch handler, as `Deno.serve` and `deno serve` take it. */
export interface ReinsApp {
  /** Answers one request. */
  fetch(request: Request, ...rest: unknown[]): Response | Promise<Response>;
  /** Answers a request for a path (e.g. `/runs`) or URL, with no server (for tests). */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

/**
 * Creates the app over the agents of `deps` (it starts runs of them only).
 * Routes: `GET /agents`, `POST /runs`, `GET /runs`, `GET /runs/:id`,
 * `GET /runs/:id/messages`, `GET /runs/:id/tree`, `GET /runs/:id/events`
 * (SSE), `POST /runs/:id/approve`, `/reject`, `/resume`, `/stop`,
 * `POST /runs/:id/messages` (a follow-up), `POST /runs/:id/fork`,
 * `GET /openapi.json`, the run inspector page (`GET /`, `GET /ui/runs/:id`),
 * and the handlers of `deps.mount` under their prefixes.
 * Every route needs `Authorization: Bearer <token>` when `token` is set.
 *
 * @example
 * ```ts
 * import { createApp } from "./app.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * const app = createApp({ kv, store: new KvRunStore(kv), agents });
 * const res = await app.request("/runs", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ task: "" }),
 * });
 * console.log(res.status, (await res.json()).error.field); // 400 task
 * kv.close();
 * ```
 */
export function createApp(deps: ServerDeps): ReinsApp {
  const resolved = resolveDeps(deps);
  const app = new Hono();
  app.use(async (c, next) => {
    resolved.onRequest(); // a cheap, throttled sweep; the request does not wait for it
    await next();
    c.res.headers.set(WORKER_HEADER, resolved.store.owner);
  });
  app.onError(onError);
  // The inspector's pages come before the token check: they show run data
  // only to an authorized request, else their script asks for the token.
  registerInspectorPages(app, resolved);
  app.use(bearerAuth(resolved.token));
  // After the token check: an unauthorized body is never read at all.
  app.use(bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HttpError(
        413,
        "payload_too_large",
        `body: larger than the limit of ${MAX_BODY_BYTES} bytes`,
      );
    },
  }));
  app.notFound((c) =>
    c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404)
  );
  app.get("/openapi.json", (c) => c.json(openApiDocument()));
  registerAgentRoutes(app, resolved);
  registerRunRoutes(app, resolved);
  registerControlRoutes(app, resolved);
  registerConversationRoutes(app, resolved);
  registerEventRoutes(app, resolved);
  registerInspectorParts(app, resolved);
  for (const [prefix, handler] of Object.entries(resolved.mount)) {
    app.all(`${prefix.replace(/\/+$/, "")}/*`, (c) => handler(c.req.raw));
  }
  return {
    fetch: (request, ...rest) => app.fetch(request, ...(rest as [])),
    // Hono types init as the Node types' RequestInit, which Deno 2.5's own does not satisfy.
    request: (input, init) =>
      Promise.resolve(app.request(input, init as Parameters<typeof app.request>[1])),
  };
}
