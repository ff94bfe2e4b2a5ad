// The support desk's command line: `deno task run --agent support "Where is order 42?"`.
import { cli } from "@reins/reins/cli";
import { agents } from "./agents.ts";

// `command`: how --help and the printed hints (approve, reject, resume) name it.
Deno.exit(await cli({ agents, command: "deno task run" }));
