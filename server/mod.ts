/**
 * The reins server: `createApp(deps)` returns the Hono app (runs API, live
 * events over SSE, approvals, Stop, the run inspector, an OpenAPI document),
 * the background worker that executes stored runs, and the model factory the
 * server uses. `server/main.ts` is the Deno Deploy entry point.
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
export * from "./app.ts";
export * from "./worker.ts";
export type { ServerDeps } from "./deps.ts";
export { defaultMakeModel, type MakeModelOptions } from "./deps.ts";
