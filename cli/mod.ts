/**
 * The command line for your agents: `cli({ agents })` in your project's
 * `deno task run` script gives `--agent NAME "task"` (progress and streamed
 * text, exit codes by status), `--resume`, `--approve`, `--reject`,
 * `--stop`, `--json` and `runs`, over runs persisted in Deno KV.
 *
 * @example
 * ```ts
 * import { cli } from "./mod.ts";
 * import { defineAgent } from "../mod.ts";
 * const support = defineAgent({ name: "support", instructions: "Be brief.", tools: [] });
 * const code = await cli({ agents: [support], args: ["--help"] });
 * console.log(code); // 0
 * ```
 *
 * @module
 */
export { cli, type CliOptions } from "./cli.ts";
export { runWorker, type WorkerCliOptions } from "./run_worker.ts";
