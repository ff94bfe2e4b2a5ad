/**
 * `deno task run`: the demo with no arguments (the chapter's experiments);
 * otherwise {@link cli} over the demo agents: one run, persisted in Deno KV,
 * or a continuation of one (resume, approve, reject, stop), or `runs`.
 *
 * @module
 */
import { cli } from "../cli/cli.ts";
import { runDemo } from "../cli/demo.ts";
import { demoCliOptions } from "./process.ts";

if (import.meta.main) {
  if (Deno.args.length === 0) await runDemo();
  else await cli(demoCliOptions());
}
