// OpenTelemetry GenAI spans and metrics of runs, in process: the SDK's span
// processor and a metric reader (npm, test only) receive what `openTelemetry()`
// records through @opentelemetry/api.
import assert from "node:assert/strict";
import type { ReadableSpan } from "npm:@opentelemetry/sdk-trace-base@2.12.1";
import { newRun } from "../harness/state.ts";
import { approve } from "../harness/verdict.ts";
import { run } from "../harness/run.ts";
import { ModelError } from "../harness/errors.ts";
import type { Model } from "../harness/model.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { demoTools } from "../tools/catalog.ts";
import { researchTool } from "../subagents/research.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";
import { parseTraceparent } from "../otel/traceparent.ts";
import { named, parentOf, reply, telemetry } from "./otel_helpers.ts";

Deno.test("otel: a research tree is one trace, children under their execute_tool span", async () => {
  const ws = await createWorkspace();
  try {
    const t = telemetry();
    const model = scriptedModel("research", { scenarios: TREE_SCENARIOS });
    const done = await run(newRun("Investigate the timeouts."), {
      model,
      tools: [researchTool({ workspace: ws })],
      observe: t.observe,
    });
    assert.equal(done.status, "completed");
    const spans = t.spans();
    const [root] = named(spans, "invoke_agent reins");
    assert.ok(root, spans.map((s) => s.name).join(", "));
    const traceId = root.spanContext().traceId;
    assert.ok(spans.every((s) => s.spanContext().traceId === traceId), "one trace");
    assert.equal(done.traceparent?.split("-")[2], root.spanContext().spanId);
    const tools = named(spans, "execute_tool research");
    const children = named(spans, "invoke_agent research");
    assert.equal(tools.length, 2);
    assert.equal(children.length, 2);
    for (const child of children) {
      const tool = tools.find((s) => s.spanContext().spanId === parentOf(child));
      assert.ok(tool, "a child's invoke_agent is under its parent's execute_tool");
      assert.equal(parentOf(tool), root.spanContext().spanId);
      assert.equal(child.attributes["reins.run.parent_id"], done.runId);
      assert.equal(child.attributes["gen_ai.tool.call.id"], undefined);
      assert.equal(
        tool.attributes["gen_ai.tool.call.id"],
        child.attributes["reins.run.id"]
          ?.toString().split(".").at(-1),
      );
    }
    for (const s of spans) assert.equal(s.attributes["gen_ai.conversation.id"], done.runId);
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    assert.equal(chats.length, done.turns + countChildTurns(spans));
    const cost = checkChats(chats);
    assert.ok(Math.abs(cost - done.costUsd) < 1e-9, `${cost} vs ${done.costUsd}`);
    assert.equal(root.attributes["reins.run.status"], "completed");
    assert.equal(root.attributes["reins.run.cost_usd"], done.costUsd);
    assert.equal(
      root.attributes["reins.budget.left_usd"],
      Math.max(0, done.limits.maxBudgetUsd - done.costUsd),
    );
    const agents = new Set([root, ...children].map((s) => s.spanContext().spanId));
    assert.ok(chats.every((c) => agents.has(parentOf(c)!)), "chat spans under their run's span");
    await t.close();
  } finally {
    await ws.remove();
  }
});

/** Checks each chat span's attributes; returns their summed cost. */
function checkChats(chats: ReadableSpan[]): number {
  let cost = 0;
  for (const c of chats) {
    assert.equal(c.kind, 2 /* CLIENT */);
    assert.equal(c.attributes["gen_ai.operation.name"], "chat");
    assert.equal(c.attributes["gen_ai.provider.name"], "reins.scripted");
    assert.equal(c.attributes["gen_ai.request.model"], "research");
    assert.ok(Number(c.attributes["gen_ai.usage.input_tokens"]) > 0);
    assert.ok(Number(c.attributes["gen_ai.usage.output_tokens"]) > 0);
    assert.ok(String(c.attributes["gen_ai.response.finish_reasons"]).length > 0);
    assert.equal(c.attributes["gen_ai.input.messages"], undefined, "no contents by default");
    cost += Number(c.attributes["reins.cost_usd"]);
  }
  return cost;
}

function countChildTurns(spans: ReadableSpan[]): number {
  return named(spans, "invoke_agent research")
    .reduce((n, s) => n + Number(s.attributes["reins.run.turns"]), 0);
}

Deno.test("otel: metrics carry tokens by type, durations and the cost", async () => {
  const t = telemetry();
  const done = await run(newRun("hi"), {
    model: scriptedModel("plan"),
    observe: t.observe,
    tools: [],
  });
  const { resourceMetrics } = await t.reader.collect();
  const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  const byName = (n: string) => all.find((m) => m.descriptor.name === n);
  const tokens = byName("gen_ai.client.token.usage");
  assert.ok(tokens);
  const types = tokens.dataPoints.map((p) => p.attributes["gen_ai.token.type"]).sort();
  assert.deepEqual(types, ["input", "output"]);
  const input = tokens.dataPoints.find((p) => p.attributes["gen_ai.token.type"] === "input")!;
  assert.equal((input.value as { sum: number }).sum, done.usage.prompt_tokens);
  assert.equal(input.attributes["gen_ai.operation.name"], "chat");
  assert.equal(input.attributes["gen_ai.request.model"], "plan");
  const duration = byName("gen_ai.client.operation.duration");
  assert.equal((duration?.dataPoints[0].value as { count: number }).count, done.turns);
  assert.equal(duration?.descriptor.unit, "s");
  const cost = byName("reins.client.cost");
  assert.ok(Math.abs(Number(cost?.dataPoints[0].value) - done.costUsd) < 1e-9);
  await t.close();
});

Deno.test("otel: contents only when opted in; cache tokens; a failed call is an error span", async () => {
  const t = telemetry({ captureContent: true });
  let calls = 0;
  const model: Model = {
    name: "gpt-x",
    provider: "openai",
    complete: () => {
      calls += 1;
      if (calls === 2) return Promise.reject(new ModelError("rate_limited", "slow down", 429));
      return Promise.resolve({
        ...reply("secret answer", { prompt_tokens: 100, completion_tokens: 5 }),
        usage: { prompt_tokens: 100, completion_tokens: 5, cached_prompt_tokens: 60 },
        model: "gpt-x-2026",
      });
    },
  };
  const first = await run(newRun("tell me", { system: "be nice" }), { model, observe: t.observe });
  const [chat] = named(t.spans(), "chat gpt-x");
  assert.equal(chat.attributes["gen_ai.response.model"], "gpt-x-2026");
  assert.equal(chat.attributes["gen_ai.usage.cache_read.input_tokens"], 60);
  assert.match(String(chat.attributes["gen_ai.input.messages"]), /tell me/);
  assert.match(String(chat.attributes["gen_ai.output.messages"]), /secret answer/);
  assert.match(String(chat.attributes["gen_ai.system_instructions"]), /be nice/);
  assert.equal(first.status, "completed");
  const failed = await run(newRun("again"), { model, observe: t.observe });
  assert.equal(failed.status, "failed");
  const chats = named(t.spans(), "chat gpt-x");
  const bad = chats.find((s) => s.status.code === 2 /* ERROR */);
  assert.equal(bad?.attributes["error.type"], "rate_limited");
  const agent = named(t.spans(), "invoke_agent reins").find((s) =>
    s.attributes["reins.run.id"] === failed.runId
  );
  assert.equal(agent?.status.code, 2);
  assert.equal(agent?.attributes["error.type"], "run_failed");

  const quiet = telemetry();
  await run(newRun("tell me"), {
    model: { ...model, complete: () => Promise.resolve(reply("x")) },
    observe: quiet.observe,
  });
  const [plain] = named(quiet.spans(), "chat gpt-x");
  assert.equal(plain.attributes["gen_ai.input.messages"], undefined);
  assert.equal(plain.attributes["gen_ai.output.messages"], undefined);
  await Promise.all([t.close(), quiet.close()]);
});

Deno.test("otel: a resume in another process joins the trace; the approval wait is a span", async () => {
  const ws = await createWorkspace();
  try {
    const a = telemetry();
    const model = scriptedModel("destructive");
    const tools = demoTools(ws);
    const waiting = await run(newRun("clean up"), { model, tools, observe: a.observe });
    assert.equal(waiting.interruption?.type, "approval");
    const first = named(a.spans(), "invoke_agent reins")[0];
    const [wait] = named(a.spans(), "await_approval delete_file");
    assert.equal(parentOf(wait), first.spanContext().spanId);
    assert.equal(wait.attributes["reins.approval.why"], "needs_approval");
    assert.equal(first.attributes["reins.run.interruption"], "approval");
    const stored = parseTraceparent(waiting.traceparent);
    assert.equal(stored?.spanId, first.spanContext().spanId);

    const b = telemetry(); // another process: another provider, nothing shared
    const call = waiting.interruption?.type === "approval" ? waiting.interruption.callId : "";
    const done = await run(approve(structuredClone(waiting), call), {
      model,
      tools,
      observe: b.observe,
    });
    assert.equal(done.status, "completed");
    const [resumed] = named(b.spans(), "invoke_agent reins");
    assert.equal(resumed.spanContext().traceId, first.spanContext().traceId);
    assert.equal(parentOf(resumed), first.spanContext().spanId);
    assert.equal(resumed.attributes["reins.run.resumed"], true);
    assert.equal(resumed.attributes["reins.run.replayed_turns"], waiting.turns);
    const verdict = resumed.events.find((e) => e.name === "approval_verdict");
    assert.equal(verdict?.attributes?.["reins.approval.verdict"], "approved");
    assert.equal(
      done.traceparent,
      waiting.traceparent,
      "the stored context stays the first span's",
    );
  } finally {
    await ws.remove();
  }
});

Deno.test("otel: dedupe hits and tool errors show on the spans", async () => {
  const ws = await createWorkspace();
  try {
    const t = telemetry();
    const done = await run(newRun("read twice"), {
      model: scriptedModel("repeat"),
      tools: demoTools(ws),
      dedupe: true,
      observe: t.observe,
    });
    const tools = named(t.spans(), "execute_tool read_file");
    assert.equal(tools.length, 2);
    assert.equal(tools.filter((s) => s.attributes["reins.tool.cached"] === true).length, 1);
    const [root] = named(t.spans(), "invoke_agent reins");
    assert.equal(root.attributes["reins.dedupe.hits"], 1);
    assert.equal(done.status, "completed");

    const f = telemetry();
    await run(newRun("peek"), {
      model: scriptedModel("forbidden"),
      tools: demoTools(ws),
      limits: { maxTurns: 1 },
      observe: f.observe,
    });
    const [bad] = named(f.spans(), "execute_tool read_file");
    assert.equal(bad.status.code, 2);
    assert.equal(bad.attributes["error.type"], "tool_error");
    await Promise.all([t.close(), f.close()]);
  } finally {
    await ws.remove();
  }
});
