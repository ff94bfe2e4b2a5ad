/**
 * `deno task worker`: {@link runWorker} over this repository's demo agents
 * (a project passes its own: `runWorker(Deno.args, { agents: [support] })`).
 *
 * @module
 */
import { runWorker } from "../cli/run_worker.ts";
import { demoWorkerOptions } from "./process.ts";

export { runWorker };

if (import.meta.main) Deno.exitCode = await runWorker(Deno.args, demoWorkerOptions());
