// An agent's typed output is part of what it is: GET /agents shows its JSON Schema, the
// fingerprint changes with it, and a stored run meets a changed schema by the rule of
// runtime/agent_check.ts: it resumes (under the new schema) unless an answer written for
// the old one awaits its check, then it ends `failed` naming the difference. Real KV.
import assert from "node:assert/strict";
import { z } from "zod";
import { createApp } from "../server/app.ts";
import { startWorker } from "../runtime/worker.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { checkRunAgent, stampOf } from "../runtime/agent_check.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { type Agent, defineAgent } from "../subagents/define_agent.ts";
import { describeAgent, hashOf } from "../subagents/describe_agent.ts";
import { outputFormat, type OutputSchema } from "../harness/output.ts";
import { newRun } from "../harness/state.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { callId, type Scenario } from "../testing/scenarios.ts";
import { jsonCaller, waitFor } from "./server_http.ts";
import { lookupOrder, refunds, refundTool } from "./agent_fixtures.ts";

const REFUND = z.object({ order: z.number().int(), refunded: z.boolean() });
const WITH_REASON = REFUND.extend({ reason: z.string() });
const ANSWER = { order: 42, refunded: true, reason: "the customer asked" };

function typedAgent(
  output: OutputSchema | undefined,
  instructions = "Refund what is asked.",
): Agent {
  return defineAgent({
    name: "refunds",
    instructions,
    tools: [lookupOrder, refundTool()],
    ...(output === undefined ? {} : { output }),
  });
}

/** `together`: the refund and the answer in one turn; `after`: the refund, then the answer. */
const SCENARIOS: Record<string, Scenario> = {
  together: ({ turn }) =>
    turn === 0
      ? {
        content: null,
        tool_calls: [
          { id: callId(0, 0), name: "refund", args: { id: 42 } },
          { id: callId(0, 1), name: "final_answer", args: ANSWER },
        ],
      }
      : { content: null, tool_calls: [{ id: callId(turn), name: "final_answer", args: ANSWER }] },
  after: ({ turn }) => ({
    content: null,
    tool_calls: [
      turn === 0
        ? { id: callId(0), name: "refund", args: { id: 42 } }
        : { id: callId(turn), name: "final_answer", args: ANSWER },
    ],
  }),
};

/** The scripted model as one without `json_schema`: it answers with a `final_answer` call. */
function toolModeModel(name: string) {
  const { structuredOutput: _asked, ...model } = scriptedModel(name, { scenarios: SCENARIOS });
  return model;
}

async function withKv(fn: (kv: Deno.Kv, root: string) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const root = await Deno.makeTempDir({ prefix: "reins-output-change-" });
  try {
    await fn(kv, root);
  } finally {
    kv.close();
    refunds.length = 0;
    await Deno.remove(root, { recursive: true });
  }
}

/** An app and a worker over `kv` serving `agent`; `fn` gets its JSON caller and store. */
async function withProcess(
  kv: Deno.Kv,
  root: string,
  agent: Agent,
  // deno-lint-ignore no-explicit-any
  fn: (call: ReturnType<typeof jsonCaller>, store: KvRunStore) => Promise<any>,
) {
  const store = new KvRunStore(kv, { owner: `p-${crypto.randomUUID().slice(0, 6)}` });
  const deps = {
    kv,
    store,
    agents: [agent],
    makeModel: toolModeModel,
    workspaceRoot: root,
    pollMs: 20,
  };
  const worker = startWorker(deps, { everyMs: 0 });
  try {
    return await fn(jsonCaller(createApp({ ...deps, schedule: worker.schedule })), store);
  } finally {
    await worker.stop();
  }
}

// deno-lint-ignore no-explicit-any
function settled(call: ReturnType<typeof jsonCaller>, id: string): Promise<any> {
  return waitFor(async () => {
    const r = (await call("GET", `/runs/${id}`)).body;
    return r.status === "running" ? undefined : r;
  }, `run ${id} to stop`);
}

/** A run of `scenario` under `agent`, stopped awaiting the refund's approval. */
function awaitingRefund(kv: Deno.Kv, root: string, agent: Agent, scenario: string) {
  return withProcess(kv, root, agent, async (call) => {
    const made = await call("POST", "/runs", { task: "Refund order 42", model: scenario });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const waiting = await settled(call, made.body.runId);
    assert.equal(waiting.status, "interrupted");
    assert.equal(waiting.interruption.callId, callId(0, 0));
    return made.body.runId as string;
  });
}

function approve(kv: Deno.Kv, root: string, agent: Agent, id: string) {
  return withProcess(kv, root, agent, async (call, store) => {
    const ok = await call("POST", `/runs/${id}/approve`, { callId: callId(0, 0) });
    assert.equal(ok.status, 202);
    return { done: await settled(call, id), state: await store.load(id) };
  });
}

Deno.test("the description and GET /agents show the output's JSON Schema; the fingerprint follows it", () =>
  withKv(async (kv, root) => {
    const plain = await describeAgent(typedAgent(undefined));
    const typed = await describeAgent(typedAgent(REFUND));
    assert.equal(plain.output, null);
    assert.deepEqual(typed.output, outputFormat(REFUND).valueSchema);
    assert.notEqual(typed.fingerprint, plain.fingerprint);
    assert.notEqual((await describeAgent(typedAgent(WITH_REASON))).fingerprint, typed.fingerprint);
    assert.equal((await describeAgent(typedAgent(REFUND))).fingerprint, typed.fingerprint);
    // An agent without output keeps the fingerprint it had before outputs counted.
    const before = await hashOf({
      instructions: "Refund what is asked.",
      model: null,
      limits: {},
      tools: plain.tools.map((t) => ({ name: t.name, parameters: t.parameters })),
      agents: [],
    });
    assert.equal(plain.fingerprint, before);
    await withProcess(kv, root, typedAgent(WITH_REASON), async (call) => {
      const [listed] = (await call("GET", "/agents")).body.agents;
      assert.deepEqual(listed.output, outputFormat(WITH_REASON).valueSchema);
      assert.deepEqual(listed.output.required, ["order", "refunded", "reason"]);
      assert.equal(listed.fingerprint, (await describeAgent(typedAgent(WITH_REASON))).fingerprint);
      const doc = (await call("GET", "/openapi.json")).body;
      const agentSchema = doc.components.schemas.AgentList.properties.agents.items;
      assert.ok(agentSchema.properties.output, "OpenAPI documents `output`");
      const valid = z.fromJSONSchema(doc.components.schemas.AgentList as never);
      assert.ok(valid.safeParse((await call("GET", "/agents")).body).success);
    });
    await withProcess(kv, root, typedAgent(undefined), async (call) => {
      assert.equal((await call("GET", "/agents")).body.agents[0].output, null);
    });
  }));

Deno.test("a changed output schema fails a run whose final_answer awaits its check", () =>
  withKv(async (kv, root) => {
    const id = await awaitingRefund(kv, root, typedAgent(REFUND), "together");
    const { done } = await approve(kv, root, typedAgent(WITH_REASON), id);
    assert.equal(done.status, "failed");
    assert.match(
      done.stopReason,
      /^agent "refunds" changed since run \S+ started \([0-9a-f]{16}\)/,
    );
    assert.match(
      done.stopReason,
      /its output schema changed while its pending final_answer call call_0_1 of run \S+ awaited its check$/,
    );
    assert.deepEqual(refunds, [], "nothing ran under the new definition");
  }));

Deno.test("an unchanged output schema resumes that run under a reworded agent", () =>
  withKv(async (kv, root) => {
    const id = await awaitingRefund(kv, root, typedAgent(REFUND), "together");
    const reworded = typedAgent(REFUND, "Refund what is asked. Be brief.");
    const { done } = await approve(kv, root, reworded, id);
    assert.equal(done.status, "completed", done.stopReason);
    assert.deepEqual(done.output, { order: 42, refunded: true });
    assert.deepEqual(refunds, [42]);
  }));

Deno.test("a changed output schema resumes a run with no answer yet: its answer meets the new one", () =>
  withKv(async (kv, root) => {
    const id = await awaitingRefund(kv, root, typedAgent(REFUND), "after");
    const { done, state } = await approve(kv, root, typedAgent(WITH_REASON), id);
    assert.equal(done.status, "completed", done.stopReason);
    assert.deepEqual(done.output, ANSWER, "parsed by the new schema (the reason kept)");
    assert.deepEqual(state.outputSchema, outputFormat(WITH_REASON).valueSchema);
    assert.deepEqual(refunds, [42]);
  }));

Deno.test("checkRunAgent on stored runs: a final reply, a schema added or dropped, a repair", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const old = typedAgent(REFUND);
    const stored = async (last: "reply" | "repair" | "none", schema = true) => {
      const s = newRun("Refund order 42", { agent: "refunds", model: "after" });
      if (schema) s.outputSchema = outputFormat(REFUND).valueSchema;
      if (last !== "none") s.messages.push({ role: "assistant", content: JSON.stringify(ANSWER) });
      if (last === "repair") s.messages.push({ role: "user", content: "Fix it." });
      s.outputRepairs = last === "repair" ? [2] : undefined;
      const was = schema ? old : typedAgent(undefined);
      await store.save(s, { settings: stampOf(await agentRegistry([was]).info(was), {}) });
      return s;
    };
    const check = async (state: Awaited<ReturnType<typeof stored>>, agent: Agent) =>
      await checkRunAgent(store, await store.load(state.runId), agentRegistry([agent]));
    // A final text reply (a json_schema model's answer) not yet judged.
    const reply = await stored("reply");
    const refused = await check(reply, typedAgent(WITH_REASON));
    assert.ok(refused.kind === "refused");
    assert.match(refused.reason, /its output schema changed while its final reply of run \S+/);
    // The agent lost its schema: the run keeps the one it was stored with, safely.
    assert.equal((await check(reply, typedAgent(undefined))).kind, "ready");
    // A run stored untyped whose agent now has a schema, its final reply unjudged.
    const untyped = await stored("reply", false);
    const added = await check(untyped, typedAgent(REFUND));
    assert.ok(added.kind === "refused");
    assert.match(added.reason, /it has an output schema now while its final reply/);
    // A pending repair prompt: the next answer is asked for under the new schema.
    const repair = await stored("repair");
    const ready = await check(repair, typedAgent(WITH_REASON));
    assert.equal(ready.kind, "ready");
    const stamp = await store.settings(repair.runId) as { fingerprint: string };
    assert.equal(stamp.fingerprint, (await describeAgent(typedAgent(WITH_REASON))).fingerprint);
  }));
