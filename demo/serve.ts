/**
 * Entry point of `deno task serve:parallel` (`deno serve --parallel
 * demo/serve.ts`): the demo agents, served by {@link serveHandler} in each
 * worker isolate (its own KV handle on the same file, its own worker and
 * sweeps). A Stop, an approval or an event stream may land on any isolate
 * while the run executes on another.
 *
 * @module
 */
import { serveHandler } from "../server/serve_agents.ts";
import { demoServeOptions } from "./process.ts";

/** The `deno serve` handler. */
export default serveHandler(demoServeOptions());
