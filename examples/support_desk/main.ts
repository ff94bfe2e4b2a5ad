// The support desk's server: `deno task dev` (or the entry point on Deno Deploy).
import { serve } from "@reins/reins/server";
import { agents } from "./agents.ts";

serve({ agents });
