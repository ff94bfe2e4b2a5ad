// runAgent: an agent run in your own process, as its definition says (instructions,
// tools, child agents, limits, options, typed output), never wider than it.
import assert from "node:assert/strict";
import { z } from "zod";
import { approve, defineAgent, defineTool, runAgent } from "../mod.ts";
import { KvRunStore } from "../kv/mod.ts";
import { callTool, say, scriptAgents, scriptedModel } from "../testing/mod.ts";
import { agentRunOptions, narrowRun } from "../subagents/agent_run_options.ts";
import { clerk, shopScripts, stock } from "./fixtures/shop.ts";

const manager = defineAgent({
  name: "manager",
  instructions: "Delegate.",
  tools: [],
  agents: [clerk],
  limits: { maxTurns: 4, maxBudgetUsd: 0.5 },
  options: { budgetMode: "hard" },
});
const scripts = shopScripts;
const model = () =>
  scriptedModel("shop", { scenarios: { shop: scriptAgents([manager], scripts) }, maxRetries: 0 });

Deno.test("runAgent runs an agent and its child as defined: instructions, tools, limits", async () => {
  const done = await runAgent(manager, "How many A1?", { model: model() });
  assert.equal(done.status, "completed");
  const text: string | null = done.output; // an untyped agent's output is its text
  assert.equal(text, "Manager: A1: 7 units");
  assert.equal(done.agent, "manager");
  assert.deepEqual(done.messages[0], { role: "system", content: "Delegate." });
  assert.deepEqual(done.limits, { maxTurns: 4, maxBudgetUsd: 0.5 });
  // The child ran as the parent's tool, under its budget: its cost is the parent's too.
  assert.ok(done.childCostUsd > 0 && done.childCostUsd < done.costUsd);
});

Deno.test("runAgent never widens the agent: limits, options, and bad limits refused", async () => {
  await assert.rejects(
    () => runAgent(manager, "x", { model: model(), limits: { maxTurns: 9 } }),
    (e) => e instanceof RangeError && /runAgent\(manager\): maxTurns: at most 4/.test(e.message),
  );
  await assert.rejects(
    () => runAgent(manager, "x", { model: model(), options: { budgetMode: "soft" } }),
    (e) => e instanceof RangeError && /budgetMode: .*hard/.test(e.message),
  );
  await assert.rejects(
    () => runAgent(manager, "x", { model: model(), limits: { maxTurn: 2 } as never }),
    (e) =>
      e instanceof TypeError &&
      /^runAgent\(manager\): limits has no field "maxTurn"/.test(e.message),
  );
  await assert.rejects(
    () => runAgent(manager, "x", { model: model(), limits: { maxTurns: -1 } }),
    (e) => e instanceof RangeError && /^runAgent\(manager\): limits\.maxTurns/.test(e.message),
  );
  await assert.rejects(
    () => runAgent(manager, "x", { model: model(), options: { budgetMode: "sof" as never } }),
    (e) => e instanceof TypeError && /runAgent\(manager\): options\.budgetMode/.test(e.message),
  );
  // An option asked as undefined is not asked: it keeps the agent's, it does not unset it.
  const setup = { model: model(), context: { rootId: "r", dir: "/tmp/r" } };
  const kept = await agentRunOptions(manager, { budgetMode: undefined, dedupe: true }, setup);
  assert.equal(kept.budgetMode, "hard");
  assert.equal(kept.dedupe, true);
  // Lower is fine: 1 turn is the cap, so the parent stops at it.
  const lower = await runAgent(manager, "How many A1?", {
    model: model(),
    limits: { maxTurns: 1 },
  });
  assert.equal(lower.status, "max_turns_exceeded");
  assert.deepEqual(lower.limits, { maxTurns: 1, maxBudgetUsd: 0.5 });
});

Deno.test("runAgent: the agent's own model, a named one resolved, or none: a clear error", async () => {
  const named = defineAgent({ name: "named", instructions: "Be brief.", tools: [], model: "echo" });
  await assert.rejects(
    () => runAgent(named, "hi"),
    /its model is the name "echo": give resolveModel/,
  );
  const resolved = await runAgent(named, "hi", { resolveModel: (n) => scriptedModel(n) });
  assert.equal(resolved.status, "completed");
  assert.equal(resolved.model, "echo");
  const none = defineAgent({ name: "none", instructions: "Be brief.", tools: [] });
  await assert.rejects(
    () => runAgent(none, "hi"),
    /the agent names no model: give runAgent's options\.model, or defineAgent's model/,
  );
  await assert.rejects(() => runAgent({ name: "fake" } as never, "hi"), TypeError);
});

Deno.test("runAgent's model runs every agent of the tree, their own models ignored", async () => {
  // As a test does: the agents name a real model, the scripted one plays them all.
  let called = 0;
  const real = {
    name: "real-model",
    complete: () => (called++, Promise.reject(new Error("a paid call"))),
  };
  const ownClerk = defineAgent({
    name: "clerk",
    instructions: "Count stock.",
    tools: [stock],
    model: real,
  });
  const ownManager = defineAgent({
    name: "manager",
    instructions: "Delegate.",
    tools: [],
    agents: [ownClerk],
    model: real,
  });
  const played = scriptedModel("shop", {
    scenarios: { shop: scriptAgents([ownManager], scripts) },
  });
  const done = await runAgent(ownManager, "How many A1?", { model: played });
  assert.equal(done.status, "completed");
  assert.equal(done.output, "Manager: A1: 7 units");
  assert.equal(done.model, "shop");
  assert.equal(called, 0, "the agents' own model was never called");
});

Deno.test("runAgent: a typed agent's output is checked; a store keeps the run", async () => {
  const typed = defineAgent({
    name: "typed",
    instructions: "Locate the timeout.",
    tools: [],
    output: z.object({ file: z.string(), line: z.number() }),
  });
  const answer = scriptedModel("loc", {
    scenarios: { loc: () => say(JSON.stringify({ file: "errors.log", line: 12 })) },
  });
  await using kv = await Deno.openKv(":memory:");
  const store = new KvRunStore(kv);
  const done = await runAgent(typed, "Where?", { model: answer, store });
  assert.equal(done.status, "completed");
  // Typed: `output` is the schema's value (deno check fails here if it is not).
  const line: number | undefined = done.output?.line;
  assert.equal(line, 12);
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  assert.deepEqual((await store.load(done.runId))?.output, done.output);
});

Deno.test("runAgent: an aborted signal stops the run as cancelled", async () => {
  const ac = new AbortController();
  ac.abort(new Error("closing time"));
  const done = await runAgent(manager, "How many A1?", { model: model(), signal: ac.signal });
  assert.equal(done.status, "interrupted");
  assert.equal(done.interruption?.type, "cancelled");
});

Deno.test("runAgent: tool errors may only get stricter; a limit given as undefined is not given", async () => {
  const strict = defineAgent({
    name: "strict",
    instructions: "",
    tools: [],
    options: { toolErrors: "generic" },
  });
  await assert.rejects(
    () => runAgent(strict, "x", { model: model(), options: { toolErrors: "describe" } }),
    (e) =>
      e instanceof RangeError &&
      e.message === `runAgent(strict): toolErrors: the agent's tool errors are "generic"; ` +
          `a request may only ask for "generic" or "fatal"`,
  );
  const echo = scriptedModel("echo");
  const fatal = await runAgent(strict, "x", { model: echo, options: { toolErrors: "fatal" } });
  assert.equal(fatal.status, "completed");
  const kept = await runAgent(manager, "How many A1?", {
    model: model(),
    limits: { maxTurns: undefined, maxBudgetUsd: 0.25 },
  });
  assert.deepEqual(kept.limits, { maxTurns: 4, maxBudgetUsd: 0.25 });
});

Deno.test("runAgent continues a run of the agent: after a verdict, or with new limits", async () => {
  const refund = defineTool({
    name: "refund",
    description: "Refund an order.",
    parameters: z.object({ id: z.number() }),
    needsApproval: true,
    run: ({ id }) => `refunded ${id}`,
  });
  const desk = defineAgent({
    name: "desk",
    instructions: "Refund.",
    tools: [refund],
    limits: { maxTurns: 4 },
  });
  const deskModel = () =>
    scriptedModel("desk", {
      scenarios: {
        desk: ({ turn, toolTexts }) =>
          turn === 0 ? callTool(0, "refund", { id: 7 }) : say(`Done: ${toolTexts.join(", ")}`),
      },
    });
  const asked = await runAgent(desk, "Refund order 7", { model: deskModel() });
  assert.equal(asked.status, "interrupted");
  assert.ok(asked.interruption?.type === "approval");
  const { callId } = asked.interruption;
  const done = await runAgent(desk, approve(asked, callId), { model: deskModel() });
  assert.equal(done.status, "completed");
  assert.equal(done.output, "Done: refunded 7");
  assert.equal(done.runId, asked.runId);
  // Its new limits narrow the agent's too; a run of another agent is refused.
  await assert.rejects(
    () => runAgent(desk, approve(asked, callId), { model: deskModel(), limits: { maxTurns: 5 } }),
    (e) => e instanceof RangeError && /^runAgent\(desk\): maxTurns: at most 4/.test(e.message),
  );
  await assert.rejects(
    () => runAgent(manager, done, { model: model() }),
    (e) =>
      e instanceof TypeError &&
      e.message === `runAgent(manager): run "${done.runId}" is of agent "desk"`,
  );
  await assert.rejects(
    () => runAgent(desk, "", { model: deskModel() }),
    (e) =>
      e instanceof TypeError &&
      e.message === "runAgent(desk): task must be a non-empty string or a run state",
  );
});

Deno.test("a stored run's settings narrow its agent as defined now; defaults fill what it leaves unset", async () => {
  const setup = { model: model(), context: { rootId: "r", dir: "/tmp/r" } };
  // Stored when the agent was looser (or by an older server): they may not widen it now.
  const stored = { budgetMode: "soft", toolErrors: "describe", dedupe: true } as const;
  const strict = defineAgent({
    name: "strict",
    instructions: "",
    tools: [],
    options: { budgetMode: "hard", toolErrors: "fatal" },
  });
  const o = await agentRunOptions(strict, stored, setup);
  assert.deepEqual([o.budgetMode, o.toolErrors, o.dedupe], ["hard", "fatal", true]);
  // An option the agent leaves undefined takes the process's default.
  const loose = defineAgent({
    name: "loose",
    instructions: "",
    tools: [],
    options: { budgetMode: undefined },
  });
  const run = narrowRun(loose, {}, { settings: { budgetMode: "hard" } });
  assert.ok(!("widened" in run) && run.options.budgetMode === "hard");
  // A configured summary model is not one for an agent that names its own model: what is
  // stored is what runs.
  const owned = defineAgent({ name: "owned", instructions: "", tools: [], model: "support" });
  const summary = { context: { trigger: 0.5, summaryModel: "cheap" } };
  const kept = narrowRun(owned, {}, { settings: summary });
  assert.ok(!("widened" in kept));
  assert.deepEqual(kept.options, { context: { trigger: 0.5 } });
  // A configured default above the built-in one stands for an agent that sets none, stored
  // and executed (a request could not ask it: the built-in 4 is its ceiling).
  const wide = narrowRun(loose, {}, { settings: { concurrency: 8 } });
  assert.ok(!("widened" in wide) && wide.options.concurrency === 8);
  assert.equal((await agentRunOptions(loose, wide.options, setup)).concurrency, 8);
  assert.ok("widened" in narrowRun(loose, { options: { concurrency: 8 } }, {}));
  // A request narrows what the run would have: the configured 8 is its ceiling too.
  const six = narrowRun(loose, { options: { concurrency: 6 } }, { settings: { concurrency: 8 } });
  assert.ok(!("widened" in six) && six.options.concurrency === 6);
  const soft = narrowRun(loose, { options: { budgetMode: "soft" } }, {
    settings: { budgetMode: "hard" },
  });
  assert.ok("widened" in soft && soft.widened.field === "budgetMode");
});
