/**
 * Runs as OpenTelemetry GenAI spans and metrics, through `@opentelemetry/api`
 * only: whatever SDK the application registers (Deno's own with
 * `OTEL_DENO=true`) receives them; with none, nothing is recorded.
 *
 * @module
 */
import {
  type Context,
  context,
  isSpanContextValid,
  type Link,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { Model } from "../harness/model.ts";
import type { RunObserver, RunOptions } from "../harness/run_options.ts";
import type { RunState } from "../harness/state.ts";
import type { TraceSink } from "../harness/trace.ts";
import { type GenAiMetrics, genAiMetrics } from "./genai_metrics.ts";
import { captureFromEnv } from "./message_content.ts";
import { quietly, RunSpan, type RunSpanSetup, toolKey } from "./run_span.ts";
import { formatTraceparent, parseTraceparent } from "./traceparent.ts";

/** The agent name of a run that names none (`gen_ai.agent.name`). */
export const DEFAULT_AGENT_NAME = "reins";

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /**
   * Record message contents and tool arguments on the spans (default: the
   * environment's `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is
   * `true`, `span_only` or `span_and_event`). Off unless asked for: prompts
   * and replies often hold what must not leave the process.
   */
  captureContent?: boolean | undefined;
  /**
   * The agent a run is (`gen_ai.agent.name`); default: the agent the run
   * names, else, for a child run, the tool that started it (`research`), else
   * {@link DEFAULT_AGENT_NAME}.
   */
  agentName?: ((state: RunState) => string | undefined) | undefined;
}

/** Models and trace sinks wrapped by an observer, to what they wrap (children inherit wrapped ones). */
const wrappedModels = new WeakMap<Model, Model>();
const wrappedSinks = new WeakMap<TraceSink, TraceSink | undefined>();

/**
 * A run observer (`RunOptions.observe`) that turns each execution of a run,
 * its children's included, into GenAI spans: `invoke_agent {agent}` per
 * execution (a child's under its parent's `execute_tool` span), `chat {model}`
 * per model call with tokens and cost, `execute_tool {tool}` per tool call,
 * `await_approval {tool}` while a call awaits a person; plus the
 * `gen_ai.client.*` metrics and `reins.client.cost`. A run remembers the
 * trace it started in (`traceparent`), so an execution in another process
 * continues that trace.
 *
 * @example
 * ```ts
 * import { openTelemetry } from "./open_telemetry.ts";
 * import { newRun, run } from "../mod.ts";
 * const model = { name: "m", complete: async () => ({
 *   message: { role: "assistant" as const, content: "hi" },
 *   usage: { prompt_tokens: 10, completion_tokens: 2 }, finishReason: "stop" }) };
 * const done = await run(newRun("say hi"), { model, observe: openTelemetry() });
 * console.log(done.output); // hi (no spans: no OpenTelemetry SDK is registered here)
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): RunObserver {
  return openTelemetryWith({}, options);
}

/** Where an observer records: an SDK's own tracer and meter instead of the registered ones. */
export interface TelemetryProviders {
  /** Where spans go (default: the registered provider's tracer `reins`). */
  tracer?: Tracer | undefined;
  /** Where metrics go (default: the registered provider's meter `reins`, looked up per run). */
  meter?: Meter | undefined;
}

/**
 * {@link openTelemetry} recording to `providers` rather than to what is
 * registered globally (tests, benches, an application with several SDKs).
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { openTelemetryWith } from "./open_telemetry.ts";
 * const observe = openTelemetryWith({ tracer: trace.getTracer("mine") });
 * ```
 */
export function openTelemetryWith(
  providers: TelemetryProviders,
  options: OpenTelemetryOptions = {},
): RunObserver {
  const tracer = providers.tracer ?? trace.getTracer("reins");
  const toolSpans: RunSpanSetup["toolSpans"] = new Map();
  const capture = options.captureContent ?? captureFromEnv();
  return async (state, runOptions, next) => {
    if (
      !state || typeof state.runId !== "string" || typeof runOptions?.model?.complete !== "function"
    ) {
      return await next(state, runOptions); // run() says what is wrong
    }
    const model = wrappedModels.get(runOptions.model) ?? runOptions.model;
    const about = { provider: model.provider ?? "unknown", name: model.name };
    const span = startRunSpan(tracer, state, runOptions, about, { toolSpans, options });
    if (!span.isRecording()) {
      span.end();
      return await next(state, runOptions);
    }
    const setup = { tracer, toolSpans, capture, metrics: metricsOf(providers.meter) };
    // The spans under it carry the tree's id; the rest is on their parent.
    const run = new RunSpan(setup, span, state, { "gen_ai.conversation.id": state.rootId }, about);
    quietly(() => run.begin(state));
    const traced = state.traceparent
      ? state
      : { ...state, traceparent: formatTraceparent(span.spanContext()) };
    try {
      const done = await context.with(
        trace.setSpan(context.active(), span),
        () => next(traced, observed(runOptions, model, run, state.runId)),
      );
      quietly(() => run.end({ state: done }));
      return done;
    } catch (e) {
      quietly(() => run.end({ error: e }));
      throw e;
    }
  };
}

/** The agent a run names (runs of a defined agent carry its name), if any. */
function agentOf(state: RunState): string | undefined {
  const name = (state as { agent?: unknown }).agent;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** The `invoke_agent` span of one execution of `state`, where {@link parentOf} puts it. */
function startRunSpan(
  tracer: Tracer,
  state: RunState,
  runOptions: RunOptions,
  about: { provider: string; name: string },
  where: { toolSpans: RunSpanSetup["toolSpans"]; options: OpenTelemetryOptions },
): Span {
  const parent = parentOf(state, where.toolSpans);
  const agent = where.options.agentName?.(state) ?? agentOf(state) ?? parent.toolName ??
    DEFAULT_AGENT_NAME;
  return tracer.startSpan(`invoke_agent ${agent}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agent,
      "gen_ai.conversation.id": state.rootId,
      "gen_ai.provider.name": about.provider,
      "gen_ai.request.model": about.name,
      "reins.run.id": state.runId,
      ...(state.parentId ? { "reins.run.parent_id": state.parentId } : {}),
      "reins.budget.limit_usd": runOptions.limits?.maxBudgetUsd ?? state.limits?.maxBudgetUsd,
    },
    ...(parent.links ? { links: parent.links } : {}),
  }, parent.context);
}

const instruments = new WeakMap<Meter, GenAiMetrics>();

/** The instruments on `meter` (default: the registered provider's, which may change). */
function metricsOf(meter = metrics.getMeter("reins")): GenAiMetrics {
  let m = instruments.get(meter);
  if (!m) instruments.set(meter, m = genAiMetrics(meter));
  return m;
}

/**
 * Where a run's span goes: under its call's open `execute_tool` span (a child
 * started in this process), else under the span its first execution stored
 * (`traceparent`: a resume, here or elsewhere), else under the active span.
 */
function parentOf(
  state: RunState,
  toolSpans: RunSpanSetup["toolSpans"],
): { context: Context; toolName?: string; links?: Link[] | undefined } {
  const active = context.active();
  if (state.parentId && state.parentCallId) {
    const tool = toolSpans.get(toolKey(state.parentId, state.parentCallId));
    if (tool) return { context: trace.setSpan(active, tool.span), toolName: tool.toolName };
  }
  const stored = parseTraceparent(state.traceparent);
  if (!stored) return { context: active };
  // Continued from a request of another trace (a verdict, a follow-up): linked to it.
  const by = trace.getSpanContext(active);
  const links = by && isSpanContextValid(by) && by.traceId !== stored.traceId
    ? [{ context: by }]
    : undefined;
  return { context: trace.setSpanContext(active, stored), links };
}

/** `options` with the model and the trace sink reporting to `run` (wrapping the originals). */
function observed(options: RunOptions, model: Model, run: RunSpan, runId: string): RunOptions {
  const sink = options.trace && wrappedSinks.has(options.trace)
    ? wrappedSinks.get(options.trace)
    : options.trace;
  const trace: TraceSink = (event) => {
    if (event.runId === runId) run.onEvent(event);
    return sink?.(event);
  };
  wrappedSinks.set(trace, sink);
  return { ...options, model: tracedModel(model, run), trace };
}

/**
 * `model` with `complete` in a `chat` span, every other property (name,
 * prices, provider, structured output, an adapter's own) read from `model` itself.
 */
function tracedModel(model: Model, run: RunSpan): Model {
  const complete: Model["complete"] = async (request, signal) => {
    const inChat = quietly(() => run.chatStarted(request)) ?? context.active();
    try {
      const reply = await context.with(inChat, () => model.complete(request, signal));
      quietly(() => run.chatReturned(request, reply));
      return reply;
    } catch (e) {
      quietly(() => run.chatFailed(request, e));
      throw e;
    }
  };
  const traced = new Proxy(model, {
    get: (target, key) => key === "complete" ? complete : Reflect.get(target, key, target),
  });
  wrappedModels.set(traced, model);
  return traced;
}
