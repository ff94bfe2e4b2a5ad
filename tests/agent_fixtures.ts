// A small user agent for the agents tests: `support` looks an order up
// (read-only) and refunds it (needs approval; each refund is recorded), with
// a `billing` child agent; a scripted scenario that plays it; processes
// (app + worker) over one KV serving any list of agents.
import { z } from "zod";
import { defineTool } from "../harness/tool.ts";
import { type Agent, defineAgent } from "../subagents/define_agent.ts";
import { createApp, type ReinsApp } from "../server/app.ts";
import { startWorker, type Worker } from "../runtime/worker.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { callTool, say, type Scenario } from "../testing/scenarios.ts";
import { jsonCaller } from "./server_http.ts";

/** Refunds done, by order id (what a real refund would write). */
export const refunds: number[] = [];

export const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Looks an order up by its number.",
  parameters: z.object({ id: z.number().int() }),
  readOnly: true,
  run: ({ id }) => `order ${id}: shipped, $20`,
});

export function refundTool(parameters = z.object({ id: z.number().int() })) {
  return defineTool({
    name: "refund",
    description: "Refunds an order.",
    parameters,
    needsApproval: true,
    run: (args: { id: number }) => (refunds.push(args.id), `refunded order ${args.id}`),
  });
}

export const billing = defineAgent({
  name: "billing",
  description: "Answers billing questions.",
  instructions: "You answer billing questions.",
  tools: [lookupOrder],
  limits: { maxTurns: 3 },
});

export const SUPPORT_INSTRUCTIONS = "You help customers with their orders. Be brief.";

export function supportAgent(changes: Partial<Parameters<typeof defineAgent>[0]> = {}): Agent {
  return defineAgent({
    name: "support",
    description: "Customer support for orders.",
    instructions: SUPPORT_INSTRUCTIONS,
    tools: [lookupOrder, refundTool()],
    agents: [billing],
    limits: { maxTurns: 8, maxBudgetUsd: 0.5 },
    ...changes,
  });
}

/** support: look order 42 up, refund it (approval), answer; a child asked: answers. */
export const SUPPORT_SCENARIOS: Record<string, Scenario> = {
  support: ({ turn, toolTexts }) => {
    if (turn === 0) return callTool(0, "lookup_order", { id: 42 });
    if (turn === 1) return callTool(1, "refund", { id: 42 });
    return say(`Done: ${toolTexts.join(" | ")}`);
  },
  delegate: ({ turn, toolTexts, messages }) => {
    const first = messages.find((m) => m.role === "user");
    if (first?.role === "user" && first.content === "What does order 7 cost?") {
      return turn === 0 ? callTool(0, "lookup_order", { id: 7 }) : say(`It costs $20.`);
    }
    if (turn === 0) return callTool(0, "billing", { question: "What does order 7 cost?" });
    return say(`Billing says: ${toolTexts.join(" | ")}`);
  },
};

export const makeModel = (name: string) => scriptedModel(name, { scenarios: SUPPORT_SCENARIOS });

export interface Process {
  app: ReinsApp;
  worker: Worker;
  store: KvRunStore;
  // deno-lint-ignore no-explicit-any
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** An app and a worker (no timer sweeps) over `kv`, serving `agents`. */
export function process(kv: Deno.Kv, agents: readonly Agent[], root: string): Process {
  const store = new KvRunStore(kv, { owner: `p-${crypto.randomUUID().slice(0, 6)}` });
  const deps = { kv, store, agents, makeModel, workspaceRoot: root, pollMs: 20 };
  const worker = startWorker(deps, { everyMs: 0 });
  const app = createApp({ ...deps, schedule: worker.schedule, start: worker.start });
  return { app, worker, store, call: jsonCaller(app) };
}
