/**
 * The reins server for your agents. `serve({ agents })` does it all in one
 * call (KV, leases, sweeps, the Deno Deploy cron, SIGINT/SIGTERM hand-over,
 * `REINS_TOKEN`, the inspector, the MCP servers of `reins.jsonc`);
 * `serveHandler({ agents })` is the same for `deno serve --parallel`;
 * `createApp({ kv, store, agents, ... })` returns the Hono app alone (runs
 * API, `GET /agents`, live events over SSE, approvals, Stop, the inspector,
 * an OpenAPI document) to mount in another app, with `startWorker` to
 * execute its runs.
 *
 * @example
 * ```ts
 * import { createApp } from "./mod.ts";
 * import { KvRunStore } from "../kv/mod.ts";
 * import { defineAgent } from "../mod.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = [defineAgent({ name: "support", instructions: "Be brief.", tools: [] })];
 * const app = createApp({ kv, store: new KvRunStore(kv), agents });
 * const res = await app.request("/agents");
 * console.log((await res.json()).agents[0].name); // support
 * kv.close();
 * ```
 *
 * @module
 */
export { createApp, type ReinsApp } from "./app.ts";
// Serving your agents in one call (Deno Deploy, `deno run`), or as `deno serve --parallel`'s handler.
export { serve, type ServeAgentsOptions, serveHandler, type Serving } from "./serve_agents.ts";
export type { ServeOptions, Service } from "./service.ts";
export type { Mounted, RunDefaults, ServerDeps } from "./deps.ts";
export type { ScenarioCatalog } from "../testing/scenario_catalog.ts";
export type { ModelSettings } from "../runtime/env.ts";
export type { Agent } from "../subagents/define_agent.ts";
// The worker and the model factory live in runtime/ (a worker needs no HTTP); re-exported here
// because a server starts both.
export { startWorker, type SweeperOptions, type Worker } from "../runtime/worker.ts";
export { defaultMakeModel, type MakeModelOptions } from "../runtime/make_model.ts";
