/**
 * `deno task serve` (and this repository's Deno Deploy entry point): the demo
 * agents, served with `serve()` on `HOST`:`PORT` (default 127.0.0.1:8000),
 * runs in Deno KV (`REINS_KV_PATH`, default `.reins/runs.sqlite`; the
 * project's KV on Deno Deploy). A project serving its own agents writes the
 * same line with its own list: `serve({ agents: [support] })`.
 *
 * @module
 */
import { serve } from "../server/serve_agents.ts";
import { demoServeOptions } from "./process.ts";

// At the top level: serve() registers the sweep cron before it returns.
serve(demoServeOptions());
