/**
 * `GET /agents`: the agents this server serves, with their tools (parameters
 * as JSON Schema), typed output (JSON Schema) and limits: what a client may
 * start runs of, and what their answers will be.
 *
 * @module
 */
import type { Hono } from "hono";
import { limitCeiling } from "../subagents/agent_run_options.ts";
import type { ResolvedDeps } from "./deps.ts";
import type { AgentListResponse } from "./response_schemas.ts";
import type { z } from "zod";

/**
 * The body of `GET /agents`.
 *
 * @example
 * ```ts
 * import { agentList } from "./routes_agents.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * const list = await agentList(resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * console.log(list.agents[0].name, list.agents[0].default); // a true
 * kv.close();
 * ```
 */
export async function agentList(deps: ResolvedDeps): Promise<z.infer<typeof AgentListResponse>> {
  const agents = [];
  for (const agent of deps.agents.agents) {
    const { description } = await deps.agents.info(agent);
    agents.push({
      name: agent.name,
      description: agent.description,
      default: agent.name === deps.agents.defaultName,
      tools: description.tools,
      output: description.output,
      fingerprint: description.fingerprint,
      agents: description.agents.map((a) => a.name),
      limits: limitCeiling(agent, deps.runDefaults.limits),
      // JSON: an option set to undefined is not set.
      options: JSON.parse(JSON.stringify(agent.options)),
    });
  }
  return { agents };
}

/**
 * Registers `GET /agents` on `app`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerAgentRoutes } from "./routes_agents.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * registerAgentRoutes(app, resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * console.log((await (await app.request("/agents")).json()).agents.length); // 1
 * kv.close();
 * ```
 */
export function registerAgentRoutes(app: Hono, deps: ResolvedDeps): void {
  app.get("/agents", async (c) => c.json(await agentList(deps)));
}
