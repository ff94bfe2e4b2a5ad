// The OpenTelemetry observer's contract: nothing without an SDK, the stored
// traceparent, the active context, provider names, a throwing SDK, and the
// model's own properties kept through the traced model.
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
import { newRun, type RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import type { Model } from "../harness/model.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { demoTools } from "../tools/catalog.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { openTelemetry } from "../otel/mod.ts";
import { openTelemetryWith } from "../otel/open_telemetry.ts";
import { parseTraceparent } from "../otel/traceparent.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { parseHeader, toHeader } from "../kv/record.ts";
import { named, parentOf, reply, telemetry } from "./otel_helpers.ts";

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
