/**
 * Prints `--host=<HOST> --port=<PORT>` (defaults 127.0.0.1 and 8000) for
 * `deno task serve:parallel`, which passes them to `deno serve`; exits 1 when
 * the host is not loopback and `REINS_TOKEN` is unset.
 *
 * @module
 */
import { listenRefusal } from "./service.ts";
import { readEnv } from "../runtime/env.ts";

if (import.meta.main) {
  const config = readEnv();
  const refusal = listenRefusal(config);
  if (refusal) {
    console.error(`reins: ${refusal}`);
    // An address that cannot be bound, so `deno serve` fails instead of using its 0.0.0.0.
    console.log("--host=refused.invalid --port=0");
    Deno.exit(1);
  }
  console.log(`--host=${config.host} --port=${config.port}`);
}
