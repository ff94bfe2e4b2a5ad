// The scripted OpenAI-compatible endpoint of the support desk (no LLM needed):
// `deno task provider`, then LLM_BASE_URL=http://127.0.0.1:8788/v1 LLM_MODEL=support-desk.
import { createScriptedProvider } from "@reins/reins/testing";
import { scenarios } from "./scenarios.ts";

const port = Number(Deno.env.get("PROVIDER_PORT") ?? "8788");
Deno.serve(
  { hostname: "127.0.0.1", port },
  createScriptedProvider({ scenarios }).fetch,
);
