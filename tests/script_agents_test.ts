// scriptAgents: one scripted model plays a user's parent agent and its child, each by its script.
import assert from "node:assert/strict";
import { z } from "zod";
import { defineAgent, defineTool, newRun, run } from "../mod.ts";
import { agentTools } from "../subagents/mod.ts";
import { callTool, say, scriptAgents, scriptedModel, taskOf } from "../testing/mod.ts";

const stock = defineTool({
  name: "stock",
  description: "Units in stock.",
  parameters: z.object({ sku: z.string() }),
  readOnly: true,
  run: ({ sku }) => `${sku}: 7 units`,
});
const clerk = defineAgent({ name: "clerk", instructions: "Count stock.", tools: [stock] });
const manager = defineAgent({
  name: "manager",
  instructions: "Delegate.",
  tools: [],
  agents: [clerk],
});

async function play(scripts: Parameters<typeof scriptAgents>[1]) {
  const model = scriptedModel("shop", {
    scenarios: { shop: scriptAgents([manager], scripts) },
    maxRetries: 0,
  });
  const tools = await agentTools(manager, { rootId: "", dir: "" });
  return run(newRun("How many A1?", { system: manager.instructions }), {
    model,
    tools,
    limits: { maxTurns: 4 },
  });
}

Deno.test("scriptAgents plays the parent and its child agent by their own scripts", async () => {
  const done = await play({
    manager: ({ turn, toolTexts }) =>
      turn === 0
        ? callTool(0, "clerk", { question: "Count A1." })
        : say(`Manager: ${toolTexts[0]}`),
    clerk: ({ turn, toolTexts, messages }) =>
      turn === 0 ? callTool(0, "stock", { sku: taskOf(messages).slice(6, 8) }) : say(toolTexts[0]),
  });
  assert.equal(done.status, "completed");
  assert.equal(done.output, "Manager: A1: 7 units");
});

Deno.test("scriptAgents: an agent of the tree without a script is a TypeError at once", () => {
  // Before, only the child's run failed (after the scripted model's retries) and the parent,
  // reading that as a tool error, could still complete: a test checking the status passed.
  assert.throws(
    () =>
      scriptAgents([manager], {
        manager: ({ turn }) =>
          turn === 0 ? callTool(0, "clerk", { question: "Count A1." }) : say("?"),
      }),
    { name: "TypeError", message: /scriptAgents: no script for agent "clerk"/ },
  );
});

Deno.test("scriptAgents refuses a script for no agent of the tree", () => {
  assert.throws(() => scriptAgents([manager], { cashier: () => say("hi") }), {
    name: "TypeError",
    message: /a script for "cashier", which is none of the agents/,
  });
});
