// Agents of your own: defineAgent, GET /agents, POST /runs { agent }, a
// request may only narrow, and processes built from lists of agents meeting
// each other's runs (unknown agent: never claimed; changed definition:
// resumed only when the pending calls' tools are unchanged).
import assert from "node:assert/strict";
import { z } from "zod";
import { defineAgent } from "../subagents/define_agent.ts";
import type { AgentOptions } from "../subagents/agent_options.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { describeAgent } from "../subagents/describe_agent.ts";
import { newRun } from "../harness/state.ts";
import { defineTool } from "../harness/tool.ts";
import { waitFor } from "./server_http.ts";
import {
  billing,
  lookupOrder,
  process,
  refunds,
  refundTool,
  SUPPORT_INSTRUCTIONS,
  supportAgent,
} from "./agent_fixtures.ts";

async function withKv(fn: (kv: Deno.Kv, root: string) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const root = await Deno.makeTempDir({ prefix: "reins-agents-test-" });
  try {
    await fn(kv, root);
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}

// deno-lint-ignore no-explicit-any
async function settled(p: { call: (m: string, path: string) => Promise<any> }, id: string) {
  return await waitFor(async () => {
    const r = (await p.call("GET", `/runs/${id}`)).body;
    return r.status === "running" ? undefined : r;
  }, `run ${id} to stop`);
}

Deno.test("defineAgent: a bad option is a TypeError naming the field and the value", () => {
  const cases: [unknown, string][] = [
    [{ budgetMode: "loose" }, 'options.budgetMode: expected "soft" or "hard", got "loose"'],
    [{ concurrency: 0 }, "options.concurrency: expected a positive integer, got 0"],
    [{ concurrency: 1.5 }, "options.concurrency: expected a positive integer, got 1.5"],
    [{ dedupe: "yes" }, 'options.dedupe: expected true or false, got "yes"'],
    [{ stopOnPermanentError: 1 }, "options.stopOnPermanentError: expected true or false, got 1"],
    [{ toolErrors: "loud" }, 'options.toolErrors: expected "describe", "generic" or "fatal"'],
    [{ context: { trigger: 2 } }, "options.context.trigger: "],
    [{ dedup: true }, 'options: unknown key "dedup" (known: budgetMode, dedupe, toolErrors,'],
    ["fast", "options: Invalid input: expected object, received string"],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => supportAgent({ options: options as AgentOptions }),
      (e: Error) =>
        e instanceof TypeError && e.message.startsWith(`defineAgent(support): ${message}`),
      message,
    );
  }
  assert.deepEqual(supportAgent({ options: { budgetMode: "hard", concurrency: 2 } }).options, {
    budgetMode: "hard",
    concurrency: 2,
  });
});

Deno.test("defineAgent refuses two tools of one name, a bad name, a bad option", async () => {
  assert.throws(
    () => supportAgent({ tools: [lookupOrder, lookupOrder] }),
    (e: Error) => e instanceof TypeError && /two tools are named "lookup_order"/.test(e.message),
  );
  const clash = defineAgent({ name: "lookup_order", instructions: "", tools: [] });
  assert.throws(() => supportAgent({ agents: [clash] }), TypeError);
  assert.throws(() => supportAgent({ name: "sup port" }), /URL-safe/);
  assert.throws(() => supportAgent({ name: "a/b" }), TypeError);
  // deno-lint-ignore no-explicit-any
  assert.throws(() => supportAgent({ options: { budgetMode: "loose" as any } }), TypeError);
  assert.throws(() => supportAgent({ limits: { maxTurns: -1 } }), RangeError);
  // A budget an agent is given is more than $0, as over HTTP, the CLI and reins.jsonc.
  for (const usd of [0, -1]) {
    assert.throws(
      () => supportAgent({ limits: { maxBudgetUsd: usd } }),
      new RegExp(`^RangeError: limits\\.maxBudgetUsd: expected more than 0 USD, got ${usd}$`),
    );
  }
  // A tools function is checked when it is called (describing the agent at start-up).
  const late = supportAgent({ tools: () => [lookupOrder, lookupOrder] });
  await assert.rejects(() => describeAgent(late), /two tools are named/);
  // Two agents of one name in one process.
  assert.throws(() => agentRegistry([supportAgent(), supportAgent()]), /two agents are named/);
});

Deno.test("the fingerprint changes with instructions, tool parameters, model and limits", async () => {
  const fp = async (a: ReturnType<typeof supportAgent>) => (await describeAgent(a)).fingerprint;
  const base = await fp(supportAgent());
  assert.equal(await fp(supportAgent()), base);
  assert.notEqual(await fp(supportAgent({ instructions: "Other." })), base);
  assert.notEqual(await fp(supportAgent({ model: "gpt-x" })), base);
  assert.notEqual(await fp(supportAgent({ limits: { maxTurns: 9 } })), base);
  const wider = refundTool(z.object({ id: z.number().int(), reason: z.string() }));
  assert.notEqual(await fp(supportAgent({ tools: [lookupOrder, wider] })), base);
  // A tool's description is not part of it (only names and parameters).
  const reworded = defineTool({ ...lookupOrder, description: "Finds an order." });
  assert.equal(await fp(supportAgent({ tools: [reworded, refundTool()] })), base);
});

Deno.test("GET /agents lists the process's agents with their tools as JSON Schema", () =>
  withKv(async (kv, root) => {
    const p = process(
      kv,
      [supportAgent({ options: { budgetMode: "hard", concurrency: 2 } })],
      root,
    );
    try {
      const { status, body } = await p.call("GET", "/agents");
      assert.equal(status, 200);
      assert.equal(body.agents.length, 1);
      const [a] = body.agents;
      assert.equal(a.name, "support");
      assert.equal(a.default, true);
      assert.deepEqual(a.tools.map((t: { name: string }) => t.name), [
        "lookup_order",
        "refund",
        "billing",
      ]);
      assert.equal(a.tools[0].parameters.properties.id.type, "integer");
      assert.deepEqual(a.agents, ["billing"]);
      assert.deepEqual(a.limits, { maxTurns: 8, maxBudgetUsd: 0.5 });
      // What a request may narrow (before: not shown).
      assert.deepEqual(a.options, { budgetMode: "hard", concurrency: 2 });
      assert.ok(!JSON.stringify(body).includes("delete_file"), "no demo tool");
    } finally {
      await p.worker.stop();
    }
  }));

Deno.test("POST /runs: unknown agent is 400 naming the known ones; agent may be left out with one", () =>
  withKv(async (kv, root) => {
    const other = defineAgent({ name: "other", instructions: "Other.", tools: [] });
    const two = process(kv, [supportAgent(), other], root);
    const one = process(kv, [supportAgent()], root);
    try {
      const unknown = await two.call("POST", "/runs", {
        agent: "nope",
        task: "x",
        model: "support",
      });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.field, "agent");
      assert.match(unknown.body.error.message, /unknown agent "nope"; known: support, other/);
      const none = await two.call("POST", "/runs", { task: "x", model: "support" });
      assert.equal(none.status, 400);
      assert.equal(none.body.error.field, "agent");
      const bad = await two.call("POST", "/runs", { agent: "a b", task: "x", model: "support" });
      assert.equal(bad.status, 400);
      const ok = await one.call("POST", "/runs", { task: "Refund order 42", model: "support" });
      assert.equal(ok.status, 201);
      assert.equal(ok.body.agent, "support");
      assert.equal((await two.call("GET", "/runs")).body.runs.length, 1, "nothing else stored");
    } finally {
      await Promise.all([two.worker.stop(), one.worker.stop()]);
    }
  }));

Deno.test("a run of an agent has its instructions and tools; a child node is named by its agent", () =>
  withKv(async (kv, root) => {
    const p = process(kv, [supportAgent()], root);
    try {
      const res = await p.call("POST", "/runs", {
        task: "How much is order 7?",
        model: "delegate",
      });
      const done = await settled(p, res.body.runId);
      assert.equal(done.status, "completed");
      assert.equal(done.output, "Billing says: It costs $20.");
      const messages = (await p.call("GET", `/runs/${res.body.runId}/messages`)).body.messages;
      assert.deepEqual(messages[0], { role: "system", content: SUPPORT_INSTRUCTIONS });
      const nodes = (await p.call("GET", `/runs/${res.body.runId}/tree`)).body.nodes;
      assert.deepEqual(nodes.map((n: { agent: string }) => n.agent), ["support", "billing"]);
      const page = await (await p.app.request(`/ui/runs/${res.body.runId}`)).text();
      assert.match(page, /<span class="node-agent">billing<\/span>/);
      assert.match(page, /<dt>Agent<\/dt><dd>support<\/dd>/);
    } finally {
      await p.worker.stop();
    }
  }));

Deno.test("a request may only narrow: no instructions, no research options, no higher limits", () =>
  withKv(async (kv, root) => {
    const hard = supportAgent({
      options: { budgetMode: "hard", concurrency: 2, toolErrors: "generic" },
    });
    const p = process(kv, [hard], root);
    try {
      const cases: [unknown, string][] = [
        [{ task: "x", system: "You may refund anything." }, "system"],
        [{ task: "x", options: { researchDepth: 1 } }, "options.researchDepth"],
        [{ task: "x", options: { researchWrites: true } }, "options.researchWrites"],
        [{ task: "x", limits: { maxTurns: 9 } }, "limits.maxTurns"],
        [{ task: "x", limits: { maxBudgetUsd: 0.6 } }, "limits.maxBudgetUsd"],
        [{ task: "x", options: { budgetMode: "soft" } }, "options.budgetMode"],
        [{ task: "x", options: { concurrency: 3 } }, "options.concurrency"],
        [{ task: "x", options: { stopOnPermanentError: false } }, "options.stopOnPermanentError"],
        // Before: accepted, and the model saw the raw error text the agent hides.
        [{ task: "x", options: { toolErrors: "describe" } }, "options.toolErrors"],
      ];
      for (const [body, field] of cases) {
        const res = await p.call("POST", "/runs", { model: "support", ...body as object });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.field, field, JSON.stringify(res.body));
      }
      assert.equal((await p.call("GET", "/runs")).body.runs.length, 0);
      // Narrowing is fine: lower limits, a hard mode, less concurrency.
      const ok = await p.call("POST", "/runs", {
        task: "Refund order 42",
        model: "support",
        limits: { maxTurns: 4 },
        options: { budgetMode: "hard", concurrency: 1, toolErrors: "fatal" },
      });
      assert.equal(ok.status, 201);
      assert.equal(ok.body.limits.maxTurns, 4);
      const waiting = await settled(p, ok.body.runId);
      assert.equal(waiting.interruption.type, "approval");
      // A resume may not raise the limits above the agent's either.
      const more = await p.call("POST", `/runs/${ok.body.runId}/resume`, {
        limits: { maxTurns: 20 },
      });
      assert.equal(more.status, 400);
      assert.equal(more.body.error.field, "limits.maxTurns");
    } finally {
      await p.worker.stop();
    }
  }));

Deno.test("an agent naming its own model refuses a request's model", () =>
  withKv(async (kv, root) => {
    const p = process(kv, [supportAgent({ model: "support" })], root);
    try {
      const res = await p.call("POST", "/runs", { task: "x", model: "gpt-x" });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.field, "model");
      // Nor the model of its summaries (before: accepted, every summary call went to it).
      const summary = await p.call("POST", "/runs", {
        task: "x",
        options: { context: { summaryModel: "support" } },
      });
      assert.equal(summary.status, 400);
      assert.equal(summary.body.error.field, "options.context.summaryModel");
      assert.match(summary.body.error.message, /agent support has its own model/);
      const ok = await p.call("POST", "/runs", { task: "Refund order 42" });
      assert.equal(ok.status, 201);
      assert.equal(ok.body.model, "support");
    } finally {
      await p.worker.stop();
    }
  }));

/** A run of `support` stopped at the refund's approval, by a process that then went away. */
async function awaitingRefund(kv: Deno.Kv, root: string): Promise<string> {
  const a = process(kv, [supportAgent()], root);
  const id = (await a.call("POST", "/runs", { task: "Refund order 42", model: "support" })).body
    .runId;
  const waiting = await settled(a, id);
  assert.equal(waiting.interruption.type, "approval");
  assert.equal(waiting.interruption.toolName, "refund");
  await a.worker.stop();
  return id;
}

Deno.test("a process that does not serve a run's agent never claims it; one that does, does", () =>
  withKv(async (kv, root) => {
    const id = await awaitingRefund(kv, root);
    const other = defineAgent({ name: "other", instructions: "Other.", tools: [lookupOrder] });
    const b = process(kv, [other], root);
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...a: unknown[]) => warnings.push(a.join(" "));
    try {
      // The verdict is recorded (any process may take it), but B does not execute the run.
      const ok = await b.call("POST", `/runs/${id}/approve`, { callId: "call_1_0" });
      assert.equal(ok.status, 202);
      await b.worker.executor.idle();
      await b.worker.sweep(true);
      await b.worker.executor.idle();
      const view = (await b.call("GET", `/runs/${id}`)).body;
      assert.equal(view.status, "running");
      assert.equal(view.lease, null);
      assert.deepEqual(refunds.filter((r) => r === 42).length, 0);
      assert.equal(warnings.filter((w) => w.includes(id)).length, 1, "logged once");
      assert.match(warnings[0], /its agent "support" is not served here/);
    } finally {
      console.warn = warn;
      await b.worker.stop();
    }
    // A process serving support picks it up with a sweep and refunds.
    const c = process(kv, [supportAgent()], root);
    try {
      await c.worker.sweep(true);
      const done = await settled(c, id);
      assert.equal(done.status, "completed");
      assert.equal(done.output, "Done: order 42: shipped, $20 | refunded order 42");
    } finally {
      await c.worker.stop();
      refunds.length = 0;
    }
  }));

Deno.test("a changed definition resumes a run whose pending call's tool is unchanged", () =>
  withKv(async (kv, root) => {
    const id = await awaitingRefund(kv, root);
    const b = process(kv, [supportAgent({ instructions: "New wording. Be brief." })], root);
    try {
      await b.call("POST", `/runs/${id}/approve`, { callId: "call_1_0" });
      const done = await settled(b, id);
      assert.equal(done.status, "completed");
      assert.deepEqual(refunds, [42]);
    } finally {
      await b.worker.stop();
      refunds.length = 0;
    }
  }));

Deno.test("a changed definition fails a run whose pending call's tool changed or is gone", async (t) => {
  const variants = {
    "parameters changed": supportAgent({
      tools: [lookupOrder, refundTool(z.object({ id: z.number().int(), reason: z.string() }))],
    }),
    "tool gone": supportAgent({ tools: [lookupOrder] }),
  };
  for (const [name, changed] of Object.entries(variants)) {
    await t.step(name, () =>
      withKv(async (kv, root) => {
        const id = await awaitingRefund(kv, root);
        const b = process(kv, [changed], root);
        try {
          const ok = await b.call("POST", `/runs/${id}/approve`, { callId: "call_1_0" });
          assert.equal(ok.status, 202);
          const done = await settled(b, id);
          assert.equal(done.status, "failed", "never completed with Unknown tool");
          assert.match(done.stopReason, /agent "support" changed since run .* started/);
          assert.match(
            done.stopReason,
            name === "tool gone"
              ? /pending call call_1_0 of run .* names tool "refund", which it no longer has/
              : /the parameters of tool "refund" changed/,
          );
          assert.deepEqual(refunds, []);
          const messages = (await b.call("GET", `/runs/${id}/messages`)).body.messages;
          assert.ok(!JSON.stringify(messages).includes("Unknown tool"));
          const events = (await b.store.events(id)).map((e) => e.event);
          assert.equal(events.at(-1)?.type, "run_stopped");
        } finally {
          await b.worker.stop();
        }
      }));
  }
});

Deno.test("a run stored without an agent runs as the process's default agent", () =>
  withKv(async (kv, root) => {
    const p = process(kv, [supportAgent(), billing], root);
    try {
      // Two agents and no default: such a run is not this process's to take.
      const s = newRun("Refund order 42", { model: "support" });
      await p.store.save(s);
      assert.equal(await p.worker.executor.execute(s.runId), null);
    } finally {
      await p.worker.stop();
    }
    const q = process(kv, [supportAgent()], root);
    try {
      const s = newRun("Refund order 42", { model: "support" });
      await q.store.save(s);
      const stopped = await q.worker.executor.execute(s.runId);
      assert.equal(stopped?.interruption?.type, "approval");
    } finally {
      await q.worker.stop();
    }
  }));

Deno.test("the inspector shows each run's agent and offers a run of any agent; OpenAPI has /agents", () =>
  withKv(async (kv, root) => {
    const other = defineAgent({ name: "other", instructions: "Other.", tools: [] });
    const p = process(kv, [supportAgent(), other], root);
    try {
      const res = await p.call("POST", "/runs", {
        agent: "support",
        task: "Refund order 42",
        model: "support",
      });
      await settled(p, res.body.runId);
      const page = await (await p.app.request("/")).text();
      assert.match(page, /<form id="new-run"/);
      const options = [...page.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
      assert.deepEqual(options, ["support", "other"]);
      assert.match(page, /<td class="agent">support<\/td>/);
      const script = await (await p.app.request("/ui/static/new_run.js")).text();
      assert.match(script, /apiJson\("\/runs"/);
      const doc = (await p.call("GET", "/openapi.json")).body;
      assert.ok(doc.paths["/agents"].get);
      const agent = doc.components.schemas.AgentList.properties.agents.items;
      assert.deepEqual(Object.keys(agent.properties).sort(), [
        "agents",
        "default",
        "description",
        "fingerprint",
        "limits",
        "name",
        "options",
        "output",
        "tools",
      ]);
      assert.ok(doc.components.schemas.CreateRun.properties.agent);
    } finally {
      await p.worker.stop();
    }
  }));

Deno.test("settings stored before agents keep their options; research ones are dropped", () =>
  withKv(async (kv) => {
    const { KvRunStore } = await import("../kv/kv_run_store.ts");
    const { loadRunSettings } = await import("../runtime/run_settings.ts");
    const store = new KvRunStore(kv);
    await store.saveSettings("old", { dedupe: true, researchDepth: 2, researchWrites: true });
    assert.deepEqual(await loadRunSettings(store, "old"), { legacy: { dedupe: true } });
    await store.saveSettings("bad", { toolErrors: 5 });
    await assert.rejects(() => loadRunSettings(store, "bad"), /settings\.toolErrors/);
  }));

Deno.test("a tree stored before agents (no names, no stamp) is checked by its calls' tools", async (t) => {
  const { withServer, settled: settledRun } = await import("./server_helpers.ts");
  const { executeTree } = await import("../runtime/execute_tree.ts");
  const { researchTool } = await import("../subagents/research.ts");
  const { createWorkspace } = await import("../tools/workspace.ts");
  const { demoTools } = await import("../tools/catalog.ts");
  const { scriptedModel } = await import("../testing/scripted_model.ts");
  const { TREE_SCENARIOS } = await import("../testing/tree_scenarios.ts");
  /** research-approval played the old way: a research child with every demo tool, no agents. */
  const oldTree = async (kv: Deno.Kv) => {
    const store = new (await import("../kv/kv_run_store.ts")).KvRunStore(kv);
    const ws = await createWorkspace();
    const s = newRun("Have some space freed.", { model: "research-approval" });
    await store.save(s);
    const model = scriptedModel("research-approval", { scenarios: TREE_SCENARIOS });
    const tools = [...demoTools(ws), researchTool({ workspace: ws, tools: demoTools(ws) })];
    const waiting = await executeTree(store, kv, s.runId, { model, tools });
    await ws.remove();
    assert.equal(waiting.interruption?.type, "approval");
    return waiting;
  };
  await t.step(
    "served by an agent whose research may delete: it resumes",
    () =>
      withServer({ defaultAgent: "demo-cleanup" }, async (s) => {
        const root = await oldTree(s.kv);
        const i = root.interruption!;
        assert.equal(i.type === "approval" && i.toolName, "delete_file");
        const callId = i.type === "approval" ? i.callId : "";
        assert.equal((await s.call("POST", `/runs/${root.runId}/approve`, { callId })).status, 202);
        const done = await settledRun(s, root.runId);
        assert.equal(done.status, "completed", done.stopReason);
      }),
  );
  await t.step(
    "served by an agent whose research is read-only: it fails, naming the tool",
    () =>
      withServer({}, async (s) => {
        const root = await oldTree(s.kv);
        const callId = root.interruption?.type === "approval" ? root.interruption.callId : "";
        await s.call("POST", `/runs/${root.runId}/approve`, { callId });
        const done = await settledRun(s, root.runId);
        assert.equal(done.status, "failed");
        assert.match(done.stopReason, /names tool "delete_file", which it no longer has/);
      }),
  );
});
