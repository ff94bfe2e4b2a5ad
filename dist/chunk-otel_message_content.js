import {
  pending
} from "./chunk-harness_limits.js";
import {
  messageOf
} from "./chunk-harness_errors.js";

// otel/message_content.ts
var CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
function partsOf(m) {
  if (m.role === "tool") {
    return [
      {
        type: "tool_call_response",
        id: m.tool_call_id,
        response: m.content
      }
    ];
  }
  const parts = m.content ? [
    {
      type: "text",
      content: m.content
    }
  ] : [];
  if (m.role === "assistant") {
    for (const c of m.tool_calls ?? []) {
      parts.push({
        type: "tool_call",
        id: c.id,
        name: c.function.name,
        arguments: c.function.arguments
      });
    }
  }
  return parts;
}
function contentAttributes(messages, reply) {
  const system = messages.filter((m) => m.role === "system").map((m) => partsOf(m)).flat();
  const input = messages.filter((m) => m.role !== "system").map((m) => ({
    role: m.role,
    parts: partsOf(m)
  }));
  const out = {
    "gen_ai.input.messages": JSON.stringify(input)
  };
  if (system.length) out["gen_ai.system_instructions"] = JSON.stringify(system);
  if (reply) {
    const output = {
      role: "assistant",
      parts: partsOf(reply.message),
      finish_reason: reply.finishReason
    };
    out["gen_ai.output.messages"] = JSON.stringify([
      output
    ]);
  }
  return out;
}
function captureSwitchOn(value) {
  return [
    "true",
    "span_only",
    "span_and_event"
  ].includes((value ?? "").trim().toLowerCase());
}
function captureFromEnv() {
  try {
    const status = Deno.permissions.querySync({
      name: "env",
      variable: CAPTURE_CONTENT_ENV
    });
    return status.state === "granted" && captureSwitchOn(Deno.env.get(CAPTURE_CONTENT_ENV));
  } catch {
    return false;
  }
}

// otel/open_telemetry.ts
import { context as context2, isSpanContextValid as isSpanContextValid2, metrics, SpanKind as SpanKind3, trace as trace3 } from "@opentelemetry/api";

// otel/genai_metrics.ts
var TOKEN_BUCKETS = [
  1,
  4,
  16,
  64,
  256,
  1024,
  4096,
  16384,
  65536,
  262144,
  1048576,
  4194304
];
var SECOND_BUCKETS = [
  0.01,
  0.02,
  0.04,
  0.08,
  0.16,
  0.32,
  0.64,
  1.28,
  2.56,
  5.12,
  10.24,
  20.48
];
function genAiMetrics(meter) {
  return {
    tokens: meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      description: "Number of input and output tokens used.",
      advice: {
        explicitBucketBoundaries: TOKEN_BUCKETS
      }
    }),
    duration: meter.createHistogram("gen_ai.client.operation.duration", {
      unit: "s",
      description: "GenAI operation duration.",
      advice: {
        explicitBucketBoundaries: SECOND_BUCKETS
      }
    }),
    cost: meter.createCounter("reins.client.cost", {
      unit: "{USD}",
      description: "USD billed for model calls, as reins prices them."
    })
  };
}
function recordCall(m, call) {
  m.duration.record(call.seconds, call.attributes);
  if (call.usage) {
    m.tokens.record(call.usage.input, {
      ...call.attributes,
      "gen_ai.token.type": "input"
    });
    m.tokens.record(call.usage.output, {
      ...call.attributes,
      "gen_ai.token.type": "output"
    });
  }
  if (call.costUsd !== void 0 && call.costUsd > 0) m.cost.add(call.costUsd, call.attributes);
}

// otel/run_span.ts
import { context, SpanKind as SpanKind2, trace as trace2 } from "@opentelemetry/api";

// otel/chat_span.ts
import { SpanKind, trace } from "@opentelemetry/api";

// otel/span_status.ts
import { SpanStatusCode } from "@opentelemetry/api";
function errorType(error) {
  const kind = error?.kind;
  if (typeof kind === "string") return kind;
  return error instanceof Error ? error.name : "_OTHER";
}
function failSpan(span, error) {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: messageOf(error)
  });
}
function errorStatus(message) {
  return message == null ? {
    code: SpanStatusCode.ERROR
  } : {
    code: SpanStatusCode.ERROR,
    message
  };
}

// otel/chat_span.ts
var ChatSpan = class {
  /** The context to make the call in. */
  context;
  #span;
  #metrics;
  #capture;
  #started = performance.now();
  /** The conventions' attributes of the call, for the metrics too. */
  #attributes;
  #usage;
  /** Starts the span of a call of `model` under `parent`, with `base` on it. */
  constructor(setup, parent, base, model, request) {
    this.#metrics = setup.metrics;
    this.#capture = setup.capture;
    this.#attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": model.provider,
      "gen_ai.request.model": model.name
    };
    this.#span = setup.tracer.startSpan(`chat ${model.name}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        ...base,
        ...this.#attributes,
        ...request.maxTokens === void 0 ? {} : {
          "gen_ai.request.max_tokens": request.maxTokens
        }
      }
    }, parent);
    this.context = trace.setSpan(parent, this.#span);
  }
  /** The model answered: what it said about itself (the cost comes with {@link billed}). */
  returned(request, reply) {
    const u = reply.usage ?? {};
    const responseModel = reply.model ?? this.#attributes["gen_ai.request.model"];
    this.#attributes["gen_ai.response.model"] = responseModel;
    this.#usage = {
      input: u.prompt_tokens,
      output: u.completion_tokens
    };
    this.#span.setAttributes({
      "gen_ai.response.model": responseModel,
      "gen_ai.response.finish_reasons": [
        reply.finishReason
      ],
      "gen_ai.usage.input_tokens": u.prompt_tokens,
      "gen_ai.usage.output_tokens": u.completion_tokens,
      ...u.cached_prompt_tokens === void 0 ? {} : {
        "gen_ai.usage.cache_read.input_tokens": u.cached_prompt_tokens
      },
      ...u.cache_write_tokens === void 0 ? {} : {
        "gen_ai.usage.cache_creation.input_tokens": u.cache_write_tokens
      },
      ...this.#capture ? contentAttributes(request.messages, reply) : {}
    });
  }
  /** The call failed (after the client's retries): an error span, its duration counted. */
  failed(request, error) {
    const type = errorType(error);
    this.#attributes["error.type"] = type;
    this.#span.setAttribute("error.type", type);
    if (this.#capture) this.#span.setAttributes(contentAttributes(request.messages));
    failSpan(this.#span, error);
    this.#span.end();
    recordCall(this.#metrics, {
      attributes: this.#attributes,
      seconds: this.#seconds()
    });
  }
  /**
   * The reply was billed (a `turn` event, or another call the run paid for,
   * such as a compaction's summary): its cost goes on the span, which ends,
   * and into the metrics.
   */
  billed(bill) {
    this.#span.setAttributes({
      ...bill.turn === void 0 ? {} : {
        "reins.turn": bill.turn
      },
      "reins.cost_usd": bill.costUsd,
      "gen_ai.usage.cost": bill.costUsd,
      "reins.run.cost_usd": bill.runCostUsd
    });
    this.#span.end();
    recordCall(this.#metrics, {
      attributes: this.#attributes,
      seconds: this.#seconds(),
      usage: this.#usage,
      costUsd: bill.costUsd
    });
  }
  /** A reply without valid usage (counted as an estimate), or a Stop: the span ends as it is. */
  close() {
    this.#span.end();
  }
  #seconds() {
    return (performance.now() - this.#started) / 1e3;
  }
};

// otel/run_span.ts
function toolKey(runId, callId) {
  return `${runId}\0${callId}`;
}
var HANDLERS = {
  turn: (r, e) => r.billChat({
    turn: e.turn,
    costUsd: e.turnCostUsd,
    runCostUsd: e.costUsd
  }),
  tool_start: (r, e) => r.toolStart(e),
  tool_progress: (r, e) => r.openTool(e.callId)?.addEvent("progress", {
    "reins.progress.label": e.label,
    ...e.fraction === void 0 ? {} : {
      "reins.progress.fraction": e.fraction
    }
  }),
  tool_result: (r, e) => r.toolResult(e),
  approval_required: (r, e) => r.approvalRequired(e),
  spend_estimated: (r, e) => r.span.addEvent("spend_estimated", {
    "reins.cost_usd": e.usd,
    "gen_ai.usage.input_tokens": e.prompt_tokens,
    "reins.estimate.basis": e.basis
  }),
  budget_overspent: (r, e) => r.span.addEvent("budget_overspent", {
    "reins.cost_usd": e.turnCostUsd,
    "reins.budget.left_usd": e.leftUsd,
    "reins.budget.over_usd": e.overUsd
  }),
  // A follow-up opens a new exchange of the same run (contents only when captured).
  user_message: (r, e) => r.span.addEvent("user_message", {
    "reins.message.index": e.index,
    "reins.turns": e.turns
  }),
  run_stopped: (r, e) => r.stopped(e)
};
function quietly(fn) {
  try {
    return fn();
  } catch {
    return void 0;
  }
}
var RunSpan = class {
  /** The execution's `invoke_agent` span. */
  span;
  #setup;
  #context;
  #base;
  #model;
  #runId;
  #chat = null;
  #dedupeHits = 0;
  #stop = null;
  #tools = /* @__PURE__ */ new Set();
  #steps = /* @__PURE__ */ new Set();
  /**
   * Wraps `span`, the `invoke_agent` span just started for `state`; `base`
   * goes on every span under it (call {@link begin} next).
   */
  constructor(setup, span, state, base, model) {
    this.#setup = setup;
    this.span = span;
    this.#runId = state.runId;
    this.#context = trace2.setSpan(context.active(), span);
    this.#base = base;
    this.#model = model;
  }
  /** Records where the run starts from: what it replays from its record, the verdicts it got. */
  begin(state) {
    const results = state.messages.filter((m) => m.role === "tool").length;
    this.span.setAttributes({
      "reins.run.resumed": state.turns > 0 || results > 0 || state.traceparent !== void 0,
      "reins.run.replayed_turns": state.turns,
      "reins.run.replayed_tool_results": results
    });
    const rejected = new Set(state.rejected.map((r) => r.callId));
    for (const call of pending(state)) {
      const verdict = state.approved.includes(call.id) ? "approved" : rejected.has(call.id) ? "rejected" : null;
      if (!verdict) continue;
      this.span.addEvent("approval_verdict", {
        "gen_ai.tool.name": call.function.name,
        "gen_ai.tool.call.id": call.id,
        "reins.approval.verdict": verdict
      });
    }
  }
  /** Hands one of the run's trace events to its handler. */
  onEvent(event) {
    const handle = HANDLERS[event.type];
    if (handle) quietly(() => handle(this, event));
  }
  /**
   * Starts a span under the run for a step reins takes between model calls
   * (`gen_ai.operation.name` is `operation`); the caller ends it, or the run's end does.
   */
  step(name, operation, attributes, start) {
    const span = this.#setup.tracer.startSpan(name, {
      kind: SpanKind2.INTERNAL,
      ...start === void 0 ? {} : {
        startTime: start
      },
      attributes: {
        ...this.#base,
        "gen_ai.operation.name": operation,
        ...attributes
      }
    }, this.#context);
    this.#steps.add(span);
    return span;
  }
  /** A model call begins: its `chat` span, and the context to make the call in. */
  chatStarted(request) {
    this.#chat?.close();
    this.#chat = new ChatSpan(this.#setup, this.#context, this.#base, this.#model, request);
    return this.#chat.context;
  }
  /** The model answered (billing comes with the `turn` event). */
  chatReturned(request, reply) {
    this.#chat?.returned(request, reply);
  }
  /** The model call failed (after the client's retries). */
  chatFailed(request, error) {
    this.#chat?.failed(request, error);
    this.#chat = null;
  }
  /** The open model call was billed (a turn, or a call of a step such as a summary). */
  billChat(bill) {
    this.#chat?.billed(bill);
    this.#chat = null;
  }
  /** The span of call `callId` of this run, while it runs. */
  openTool(callId) {
    return this.#setup.toolSpans.get(toolKey(this.#runId, callId))?.span;
  }
  /** A tool began: its `execute_tool` span (a child run it starts nests under it). */
  toolStart(e) {
    const key = toolKey(this.#runId, e.callId);
    this.#setup.toolSpans.get(key)?.span.end();
    const span = this.#toolSpan(e.toolName, e.callId);
    if (this.#setup.capture) span.setAttribute("gen_ai.tool.call.arguments", e.args);
    this.#setup.toolSpans.set(key, {
      span,
      toolName: e.toolName
    });
    this.#tools.add(key);
  }
  /** A tool call has its result (or error, or is suspended): its span ends saying which. */
  toolResult(e) {
    const key = toolKey(this.#runId, e.callId);
    const span = this.#setup.toolSpans.get(key)?.span ?? this.#toolSpan(e.toolName, e.callId, performance.timeOrigin + performance.now() - e.ms);
    this.#setup.toolSpans.delete(key);
    this.#tools.delete(key);
    if (e.cached) {
      this.#dedupeHits += 1;
      span.setAttribute("reins.tool.cached", true);
    }
    if (e.replayed) {
      span.setAttributes({
        "reins.tool.replayed_from_run": e.replayed.runId,
        "reins.tool.replayed_from_call": e.replayed.callId
      });
    }
    if (e.suspended) {
      span.setAttributes({
        "reins.tool.suspended": e.suspended.interruption.type,
        "reins.tool.suspended_reason": e.suspended.reason
      });
    } else if (!e.ok) {
      span.setAttribute("error.type", "tool_error");
      span.setStatus(errorStatus(e.error));
    }
    span.end();
  }
  /** A call awaits a person: the wait's span runs until this execution ends. */
  approvalRequired(e) {
    this.step(`await_approval ${e.toolName}`, "await_approval", {
      "gen_ai.tool.name": e.toolName,
      "gen_ai.tool.call.id": e.callId,
      "reins.approval.why": e.why
    });
  }
  /** The run's exit, applied when the execution ends. */
  stopped(e) {
    this.#stop = e;
  }
  /** The execution is over: every span it opened ends, the run span with the exit on it. */
  end(outcome) {
    this.#chat?.close();
    this.#chat = null;
    for (const key of this.#tools) {
      const open = this.#setup.toolSpans.get(key);
      this.#setup.toolSpans.delete(key);
      open?.span.setAttribute("reins.tool.unfinished", true);
      open?.span.end();
    }
    for (const span of this.#steps) span.end();
    if ("error" in outcome) {
      this.span.setAttribute("error.type", errorType(outcome.error));
      failSpan(this.span, outcome.error);
    } else this.#exit(outcome.state);
    this.span.end();
  }
  #exit(state) {
    const i = state.interruption;
    this.span.setAttributes({
      "reins.run.status": state.status,
      ...i ? {
        "reins.run.interruption": i.type
      } : {},
      "reins.run.stop_reason": state.stopReason ?? this.#stop?.reason ?? "",
      "reins.run.turns": state.turns,
      "reins.run.cost_usd": state.costUsd,
      "reins.run.child_cost_usd": state.childCostUsd,
      "reins.run.estimated_usd": state.estimatedUsd,
      "reins.budget.left_usd": Math.max(0, state.limits.maxBudgetUsd - state.costUsd),
      "reins.dedupe.hits": this.#dedupeHits,
      "gen_ai.usage.input_tokens": state.usage.prompt_tokens,
      "gen_ai.usage.output_tokens": state.usage.completion_tokens
    });
    if (state.status === "failed") {
      this.span.setAttribute("error.type", "run_failed");
      this.span.setStatus(errorStatus(state.stopReason));
    }
  }
  /** Spans start when their event arrives (the sink is called as it is emitted), or at `start` (epoch ms). */
  #toolSpan(toolName, callId, start) {
    return this.#setup.tracer.startSpan(`execute_tool ${toolName}`, {
      kind: SpanKind2.INTERNAL,
      ...start === void 0 ? {} : {
        startTime: start
      },
      attributes: {
        ...this.#base,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": toolName,
        "gen_ai.tool.call.id": callId,
        "gen_ai.tool.type": "function"
      }
    }, this.#context);
  }
};

// otel/traceparent.ts
import { isSpanContextValid } from "@opentelemetry/api";
var TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
function formatTraceparent(context3) {
  const flags = (context3.traceFlags & 255).toString(16).padStart(2, "0");
  return `00-${context3.traceId}-${context3.spanId}-${flags}`;
}
function parseTraceparent(value) {
  const [, traceId, spanId, flags] = value?.match(TRACEPARENT) ?? [];
  if (!traceId || !spanId || !flags) return null;
  const context3 = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16),
    isRemote: true
  };
  return isSpanContextValid(context3) ? context3 : null;
}

// otel/open_telemetry.ts
var DEFAULT_AGENT_NAME = "reins";
var wrappedModels = /* @__PURE__ */ new WeakMap();
var wrappedSinks = /* @__PURE__ */ new WeakMap();
function openTelemetry(options = {}) {
  return openTelemetryWith({}, options);
}
function openTelemetryWith(providers, options = {}) {
  const tracer = providers.tracer ?? trace3.getTracer("reins");
  const toolSpans = /* @__PURE__ */ new Map();
  const capture = options.captureContent ?? captureFromEnv();
  return async (state, runOptions, next) => {
    if (!state || typeof state.runId !== "string" || typeof runOptions?.model?.complete !== "function") {
      return await next(state, runOptions);
    }
    const model = wrappedModels.get(runOptions.model) ?? runOptions.model;
    const about = {
      provider: model.provider ?? "unknown",
      name: model.name
    };
    const span = startRunSpan(tracer, state, runOptions, about, {
      toolSpans,
      options
    });
    if (!span.isRecording()) {
      span.end();
      return await next(state, runOptions);
    }
    const setup = {
      tracer,
      toolSpans,
      capture,
      metrics: metricsOf(providers.meter)
    };
    const run = new RunSpan(setup, span, state, {
      "gen_ai.conversation.id": state.rootId
    }, about);
    quietly(() => run.begin(state));
    const traced = state.traceparent ? state : {
      ...state,
      traceparent: formatTraceparent(span.spanContext())
    };
    try {
      const done = await context2.with(trace3.setSpan(context2.active(), span), () => next(traced, observed(runOptions, model, run, state.runId)));
      quietly(() => run.end({
        state: done
      }));
      return done;
    } catch (e) {
      quietly(() => run.end({
        error: e
      }));
      throw e;
    }
  };
}
function agentOf(state) {
  const name = state.agent;
  return typeof name === "string" && name !== "" ? name : void 0;
}
function startRunSpan(tracer, state, runOptions, about, where) {
  const parent = parentOf(state, where.toolSpans);
  const agent = where.options.agentName?.(state) ?? agentOf(state) ?? parent.toolName ?? DEFAULT_AGENT_NAME;
  return tracer.startSpan(`invoke_agent ${agent}`, {
    kind: SpanKind3.INTERNAL,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agent,
      "gen_ai.conversation.id": state.rootId,
      "gen_ai.provider.name": about.provider,
      "gen_ai.request.model": about.name,
      "reins.run.id": state.runId,
      ...state.parentId ? {
        "reins.run.parent_id": state.parentId
      } : {},
      "reins.budget.limit_usd": runOptions.limits?.maxBudgetUsd ?? state.limits?.maxBudgetUsd
    },
    ...parent.links ? {
      links: parent.links
    } : {}
  }, parent.context);
}
var instruments = /* @__PURE__ */ new WeakMap();
function metricsOf(meter = metrics.getMeter("reins")) {
  let m = instruments.get(meter);
  if (!m) instruments.set(meter, m = genAiMetrics(meter));
  return m;
}
function parentOf(state, toolSpans) {
  const active = context2.active();
  if (state.parentId && state.parentCallId) {
    const tool = toolSpans.get(toolKey(state.parentId, state.parentCallId));
    if (tool) return {
      context: trace3.setSpan(active, tool.span),
      toolName: tool.toolName
    };
  }
  const stored = parseTraceparent(state.traceparent);
  if (!stored) return {
    context: active
  };
  const by = trace3.getSpanContext(active);
  const links = by && isSpanContextValid2(by) && by.traceId !== stored.traceId ? [
    {
      context: by
    }
  ] : void 0;
  return {
    context: trace3.setSpanContext(active, stored),
    links
  };
}
function observed(options, model, run, runId) {
  const sink = options.trace && wrappedSinks.has(options.trace) ? wrappedSinks.get(options.trace) : options.trace;
  const trace4 = (event) => {
    if (event.runId === runId) run.onEvent(event);
    return sink?.(event);
  };
  wrappedSinks.set(trace4, sink);
  return {
    ...options,
    model: tracedModel(model, run),
    trace: trace4
  };
}
function tracedModel(model, run) {
  const complete = async (request, signal) => {
    const inChat = quietly(() => run.chatStarted(request)) ?? context2.active();
    try {
      const reply = await context2.with(inChat, () => model.complete(request, signal));
      quietly(() => run.chatReturned(request, reply));
      return reply;
    } catch (e) {
      quietly(() => run.chatFailed(request, e));
      throw e;
    }
  };
  const traced = new Proxy(model, {
    get: (target, key) => key === "complete" ? complete : Reflect.get(target, key, target)
  });
  wrappedModels.set(traced, model);
  return traced;
}

export {
  CAPTURE_CONTENT_ENV,
  DEFAULT_AGENT_NAME,
  openTelemetry
};
