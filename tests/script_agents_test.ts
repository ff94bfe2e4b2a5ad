// scriptAgents: one scripted model plays a user's parent agent and its child, each by its script.
import assert from "node:assert/strict";
import { defineAgent, newRun, run } from "../mod.ts";
import { agentTools } from "../subagents/mod.ts";
import { callTool, say, scriptAgents, scriptedModel } from "../testing/mod.ts";
import { clerk, shopScripts } from "./fixtures/shop.ts";

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
  const done = await play(shopScripts);
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

Deno.test("a script that throws fails the run at once, saying so: no retry of a 5xx", async () => {
  const asked: number[] = [];
  // Default retries (3): a 500 would be asked 4 times, with backoff between.
  const model = scriptedModel("shop", {
    scenarios: { shop: scriptAgents([manager], shopScripts) },
    onRequest: (info) => void asked.push(info.turn),
    stream: false,
  });
  // No system message: the request is none of the agents', a mistake of the test's own.
  const done = await run(newRun("How many A1?"), { model, tools: [], limits: { maxTurns: 4 } });
  assert.equal(done.status, "failed");
  assert.match(
    done.stopReason ?? "",
    /\(bad_request\): 400 .*the scenario failed: scriptAgents: the request's system message is none of the agents' instructions/,
  );
  assert.equal(asked.length, 1);
});
