/**
 * Serves the scripted provider over HTTP:
 * `deno task provider [--port 8788] [--hostname 127.0.0.1] [--latency-ms 0] [--chunk-ms 20]`.
 *
 * @module
 */
import { createScriptedProvider, SCRIPTED_CHUNK_MS } from "./scripted_provider.ts";
import { builtInScenarioNames } from "./scenario_catalog.ts";

/** The provider's command-line settings. */
export interface ProviderArgs {
  /** Port to listen on (default 8788). */
  port: number;
  /** Interface to bind (default 127.0.0.1). */
  hostname: string;
  /** Delay before each chat reply, in ms. */
  latencyMs: number;
  /** Pause between the chunks of a streamed reply, in ms. */
  chunkMs: number;
  /** `--help` was given. */
  help: boolean;
}

/** The usage text of `deno task provider`. */
export const USAGE =
  `Usage: deno task provider [--port N] [--hostname H] [--latency-ms N] [--chunk-ms N]

Serves the scripted OpenAI-compatible provider (POST /v1/chat/completions, GET /v1/models).
The request's "model" picks the scenario.

  --port N         port to listen on (default 8788)
  --hostname H     interface to bind (default 127.0.0.1)
  --latency-ms N   delay before each chat reply, in ms (default 0)
  --chunk-ms N     pause between the chunks of a streamed reply, in ms (default ${SCRIPTED_CHUNK_MS})
  -h, --help       show this help`;

/**
 * Parses the provider's flags (`--flag value` or `--flag=value`); throws a
 * `TypeError` with a one-line message on a bad flag or value.
 *
 * @example
 * ```ts
 * import { parseProviderArgs } from "./main.ts";
 * console.log(parseProviderArgs(["--port", "9000"]).port); // 9000
 * ```
 */
export function parseProviderArgs(args: readonly string[]): ProviderArgs {
  const out: ProviderArgs = {
    port: 8788,
    hostname: "127.0.0.1",
    latencyMs: 0,
    chunkMs: SCRIPTED_CHUNK_MS,
    help: false,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-h" || arg === "--help") {
      out.help = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!["--port", "--hostname", "--latency-ms", "--chunk-ms"].includes(flag)) {
      throw new TypeError(`unknown argument "${arg}" (try --help)`);
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === "") throw new TypeError(`${flag} needs a value`);
    if (flag === "--hostname") {
      out.hostname = value;
      continue;
    }
    const n = Number(value);
    if (flag === "--port") {
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        throw new TypeError(`--port must be an integer in 0..65535, got "${value}"`);
      }
      out.port = n;
    } else {
      if (!Number.isFinite(n) || n < 0) {
        throw new TypeError(`${flag} must be a number >= 0, got "${value}"`);
      }
      if (flag === "--chunk-ms") out.chunkMs = n;
      else out.latencyMs = n;
    }
  }
  return out;
}

if (import.meta.main) {
  let args: ProviderArgs;
  try {
    args = parseProviderArgs(Deno.args);
  } catch (err) {
    console.error(`reins provider: ${(err as Error).message}`);
    Deno.exit(2);
  }
  if (args.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const provider = createScriptedProvider({ latencyMs: args.latencyMs, chunkMs: args.chunkMs });
  try {
    Deno.serve({
      port: args.port,
      hostname: args.hostname,
      onListen: ({ hostname, port }) => {
        console.log(`reins provider listening on http://${hostname}:${port}/v1`);
        console.log(`scenarios: ${builtInScenarioNames().join(", ")}`);
      },
    }, provider.fetch);
  } catch (err) {
    console.error(
      `reins provider: cannot listen on ${args.hostname}:${args.port}: ${(err as Error).message}`,
    );
    Deno.exit(1);
  }
}
