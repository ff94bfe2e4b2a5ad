// OpenTelemetry GenAI spans and metrics of runs, in process: the SDK's in-memory
// exporter and a metric reader (npm, test only) receive what `openTelemetry()`
// records through @opentelemetry/api.
import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Context,
  context,
  type ContextManager,
  ROOT_CONTEXT,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { approve, newRun, type RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import { ModelError } from "../harness/errors.ts";
import type { Model } from "../harness/model.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { demoTools } from "../tools/catalog.ts";
import { researchTool } from "../subagents/research.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";
import { openTelemetry, type OpenTelemetryOptions } from "../otel/mod.ts";
import { openTelemetryWith } from "../otel/open_telemetry.ts";
import { parseTraceparent } from "../otel/traceparent.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { parseHeader, toHeader } from "../kv/record.ts";

class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Keeps finished spans (the SDK's InMemorySpanExporter answers on a timer the test sanitizer flags). */
class MemoryExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.spans.push(...spans);
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function telemetry(options: OpenTelemetryOptions = {}) {
  const exporter = new MemoryExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meters = new MeterProvider({ readers: [reader] });
  const observe = openTelemetryWith(
    { tracer: provider.getTracer("reins"), meter: meters.getMeter("reins") },
    options,
  );
  const close = async () => {
    await provider.shutdown(); // waits for the exporter's pending callbacks
    await meters.shutdown();
  };
  return { observe, spans: () => exporter.spans, reader, close };
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

function reply(content: string, usage = { prompt_tokens: 100, completion_tokens: 10 }) {
  return { message: { role: "assistant" as const, content }, usage, finishReason: "stop" };
}

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
    let cost = 0;
    for (const c of chats) {
      assert.equal(c.kind, 2 /* CLIENT */);
      assert.equal(c.attributes["gen_ai.operation.name"], "chat");
      assert.equal(c.attributes["gen_ai.provider.name"], "reins.scripted");
      assert.equal(c.attributes["gen_ai.request.model"], "research");
      assert.ok(Number(c.attributes["gen_ai.usage.input_tokens"]) > 0);
      assert.ok(Number(c.attributes["gen_ai.usage.output_tokens"]) > 0);
      assert.deepEqual(
        c.attributes["gen_ai.response.finish_reasons"]?.toString().length! > 0,
        true,
      );
      assert.equal(c.attributes["gen_ai.input.messages"], undefined, "no contents by default");
      cost += Number(c.attributes["reins.cost_usd"]);
    }
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

Deno.test("otel: with no SDK registered nothing is recorded and the run is unchanged", async () => {
  assert.equal(trace.getTracer("probe").startSpan("x").isRecording(), false);
  const state: RunState = newRun("hi");
  const done = await run(state, { model: scriptedModel("echo"), observe: openTelemetry() });
  assert.equal(done.output, "hi");
  assert.equal(done.traceparent, undefined);
});

Deno.test("otel: the traceparent is stored with the run in KV; a malformed one is refused", async () => {
  const t = telemetry();
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const done = await run(newRun("hi"), {
      model: scriptedModel("echo"),
      observe: t.observe,
      store,
    });
    const [span] = named(t.spans(), "invoke_agent reins");
    const loaded = await new KvRunStore(kv).load(done.runId);
    assert.equal(parseTraceparent(loaded.traceparent)?.spanId, span.spanContext().spanId);
    const bad = { ...toHeader(loaded), traceparent: "00-nope" };
    assert.throws(() => parseHeader(done.runId, bad), /traceparent/);
  } finally {
    kv.close();
    await t.close();
  }
});

/** Enough of a context manager for a synchronous `context.with` (what the observer reads first). */
class StackContextManager implements ContextManager {
  #stack: Context[] = [];
  active(): Context {
    return this.#stack.at(-1) ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    this.#stack.push(ctx);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#stack.pop();
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#stack = [];
    return this;
  }
}

Deno.test("otel: a new run nests under the active span; a resume from another trace links to it", async () => {
  const t = telemetry();
  context.setGlobalContextManager(new StackContextManager());
  try {
    const request = (traceId: string) =>
      trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: "1".repeat(16), traceFlags: 1 });
    const model = scriptedModel("echo");
    const named_ = { ...newRun("hi"), agent: "greeter" }; // a run of a defined agent
    const first = await context.with(
      request("a".repeat(32)),
      () => run(named_, { model, observe: t.observe }),
    );
    const [s1] = named(t.spans(), "invoke_agent greeter");
    assert.equal(s1.spanContext().traceId, "a".repeat(32), "under the request's span");
    assert.equal(parentOf(s1), "1".repeat(16));
    const more = { ...first, status: "running" as const };
    more.messages = [...first.messages, { role: "user", content: "again" }];
    await context.with(request("b".repeat(32)), () => run(more, { model, observe: t.observe }));
    const s2 = named(t.spans(), "invoke_agent greeter")[1];
    assert.equal(s2.spanContext().traceId, "a".repeat(32), "the run's trace, not the request's");
    assert.equal(parentOf(s2), s1.spanContext().spanId);
    assert.deepEqual(s2.links.map((l) => l.context.traceId), ["b".repeat(32)]);
  } finally {
    context.disable();
    await t.close();
  }
});

Deno.test("otel: gen_ai.provider.name comes from the model (an OpenAI-compatible host, the AI SDK)", async () => {
  const t = telemetry();
  const groq = createOpenAIModel({ baseUrl: "https://api.groq.com/openai/v1", model: "llama" });
  assert.equal(groq.provider, "groq");
  assert.equal(
    createOpenAIModel({ baseUrl: "http://127.0.0.1:1/v1", model: "m" }).provider,
    "openai",
  );
  const model = { ...groq, complete: () => Promise.resolve(reply("hi")) };
  await run(newRun("hi"), { model, observe: t.observe });
  const [chat] = named(t.spans(), "chat llama");
  assert.equal(chat.attributes["gen_ai.provider.name"], "groq");
  await t.close();
});

Deno.test("otel: a telemetry SDK that throws never breaks a run", async () => {
  const broken = () => {
    throw new Error("exporter on fire");
  };
  const span = {
    isRecording: () => true,
    spanContext: () => ({ traceId: "c".repeat(32), spanId: "d".repeat(16), traceFlags: 1 }),
    setAttribute: broken,
    setAttributes: broken,
    addEvent: broken,
    setStatus: broken,
    recordException: broken,
    end: broken,
  };
  const tracer = { startSpan: () => span, startActiveSpan: broken } as unknown as Tracer;
  const ws = await createWorkspace();
  try {
    const done = await run(newRun("look"), {
      model: scriptedModel("plan"),
      tools: demoTools(ws),
      observe: openTelemetryWith({ tracer }),
    });
    assert.equal(done.status, "completed");
    assert.equal(done.turns, 3);
  } finally {
    await ws.remove();
  }
});

Deno.test("otel: the traced model keeps the model's own properties (structured output)", async () => {
  const t = telemetry();
  const seen: unknown[] = [];
  const model: Model = {
    name: "typed",
    structuredOutput: "json_schema",
    complete: (request) => {
      seen.push(request.output);
      return Promise.resolve(reply('{"line":3}'));
    },
  };
  const done = await run(newRun("where?"), {
    model,
    output: z.object({ line: z.number() }),
    observe: t.observe,
  });
  assert.equal(done.status, "completed");
  assert.ok(seen[0], "the response format reached the model through the wrapper");
  assert.equal(named(t.spans(), "chat typed").length, 1);
  await t.close();
});
