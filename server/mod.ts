/**
 * The reins server: `createApp(deps)` returns the Hono app (runs API, live
 * events over SSE, approvals, Stop, the run inspector, an OpenAPI document),
 * and (re-exported from `runtime/`) the background worker that executes stored
 * runs and the model factory the server uses. `server/main.ts` is the Deno Deploy entry point.
 *
 * @example
 * ```ts
 * import { createApp } from "./mod.ts";
 * import { KvRunStore } from "../kv/mod.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = createApp({ kv, store: new KvRunStore(kv), scripted: true });
 * console.log((await app.request("/openapi.json")).status); // 200
 * kv.close();
 * ```
 *
 * @module
 */
export { createApp, type ReinsApp } from "./app.ts";
export type { RunDefaults, ServerDeps } from "./deps.ts";
// The worker and the model factory live in runtime/ (a worker needs no HTTP); re-exported here
// because a server starts both.
export { startWorker, type SweeperOptions, type Worker } from "../runtime/worker.ts";
export { defaultMakeModel, type MakeModelOptions } from "../runtime/make_model.ts";
