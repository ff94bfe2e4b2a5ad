/**
 * The spans of one execution of a run: its `invoke_agent` span, and under it
 * a `chat` span per model call, an `execute_tool` span per tool call and a
 * span per step reins takes between them (an approval wait), all built from
 * the run's trace events and the model calls it makes.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { ModelReply, ModelRequest } from "../harness/model.ts";
import { pending, type RunState } from "../harness/state.ts";
import type {
  ApprovalRequiredEvent,
  RunStoppedEvent,
  ToolResultEvent,
  ToolStartEvent,
  TraceEvent,
} from "../harness/trace.ts";
import type { GenAiMetrics } from "./genai_metrics.ts";
import { type ChatBill, ChatSpan } from "./chat_span.ts";
import { errorStatus, errorType, failSpan } from "./span_status.ts";

/** An open `execute_tool` span. */
export interface ToolSpan {
  /** The span. */
  span: Span;
  /** The tool's name (a child run started by the call is that agent). */
  toolName: string;
}

/** What the executions of one observer share. */
export interface RunSpanSetup {
  /** Where spans start. */
  tracer: Tracer;
  /** Where model calls are counted. */
  metrics: GenAiMetrics;
  /** Open `execute_tool` spans of every run in this process (a child nests under its call's). */
  toolSpans: Map<string, ToolSpan>;
  /** Record message contents (opt-in). */
  capture: boolean;
}

/** The key of call `callId` of run `runId` in {@link RunSpanSetup.toolSpans}. */
export function toolKey(runId: string, callId: string): string {
  return `${runId}\u0000${callId}`;
}

type Handlers = {
  [K in TraceEvent["type"]]?: (run: RunSpan, event: Extract<TraceEvent, { type: K }>) => void;
};

// One entry per trace event that shows in the spans: a new kind of step
// (compaction, say) is one more entry, usually a `run.step(...)` span, plus
// `run.billChat(...)` when the step paid for a model call of its own.
const HANDLERS: Handlers = {
  turn: (r, e) => r.billChat({ turn: e.turn, costUsd: e.turnCostUsd, runCostUsd: e.costUsd }),
  tool_start: (r, e) => r.toolStart(e),
  tool_progress: (r, e) =>
    r.openTool(e.callId)?.addEvent("progress", {
      "reins.progress.label": e.label,
      ...(e.fraction === undefined ? {} : { "reins.progress.fraction": e.fraction }),
    }),
  tool_result: (r, e) => r.toolResult(e),
  approval_required: (r, e) => r.approvalRequired(e),
  spend_estimated: (r, e) =>
    r.span.addEvent("spend_estimated", {
      "reins.cost_usd": e.usd,
      "gen_ai.usage.input_tokens": e.prompt_tokens,
      "reins.estimate.basis": e.basis,
    }),
  budget_overspent: (r, e) =>
    r.span.addEvent("budget_overspent", {
      "reins.cost_usd": e.turnCostUsd,
      "reins.budget.left_usd": e.leftUsd,
      "reins.budget.over_usd": e.overUsd,
    }),
  // A follow-up opens a new exchange of the same run (contents only when captured).
  user_message: (r, e) =>
    r.span.addEvent("user_message", {
      "reins.message.index": e.index,
      "reins.turns": e.turns,
    }),
  run_stopped: (r, e) => r.stopped(e),
};

/**
 * `fn()`, or undefined if it throws: telemetry never breaks a run (a span
 * that cannot be written is lost, the run goes on).
 */
export function quietly<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/** The spans of one execution of one run (see the module doc). */
export class RunSpan {
  /** The execution's `invoke_agent` span. */
  readonly span: Span;
  readonly #setup: RunSpanSetup;
  readonly #context: Context;
  readonly #base: Attributes;
  readonly #model: { provider: string; name: string };
  readonly #runId: string;
  #chat: ChatSpan | null = null;
  #dedupeHits = 0;
  #stop: RunStoppedEvent | null = null;
  readonly #tools = new Set<string>();
  readonly #steps = new Set<Span>();

  /**
   * Wraps `span`, the `invoke_agent` span just started for `state`; `base`
   * goes on every span under it (call {@link begin} next).
   */
  constructor(
    setup: RunSpanSetup,
    span: Span,
    state: RunState,
    base: Attributes,
    model: { provider: string; name: string },
  ) {
    this.#setup = setup;
    this.span = span;
    this.#runId = state.runId;
    this.#context = trace.setSpan(context.active(), span);
    this.#base = base;
    this.#model = model;
  }

  /** Records where the run starts from: what it replays from its record, the verdicts it got. */
  begin(state: RunState): void {
    const results = state.messages.filter((m) => m.role === "tool").length;
    this.span.setAttributes({
      "reins.run.resumed": state.turns > 0 || results > 0 || state.traceparent !== undefined,
      "reins.run.replayed_turns": state.turns,
      "reins.run.replayed_tool_results": results,
    });
    const rejected = new Set(state.rejected.map((r) => r.callId));
    for (const call of pending(state)) {
      const verdict = state.approved.includes(call.id)
        ? "approved"
        : rejected.has(call.id)
        ? "rejected"
        : null;
      if (!verdict) continue;
      this.span.addEvent("approval_verdict", {
        "gen_ai.tool.name": call.function.name,
        "gen_ai.tool.call.id": call.id,
        "reins.approval.verdict": verdict,
      });
    }
  }

  /** Hands one of the run's trace events to its handler. */
  onEvent(event: TraceEvent): void {
    const handle = HANDLERS[event.type] as ((r: RunSpan, e: TraceEvent) => void) | undefined;
    if (handle) quietly(() => handle(this, event));
  }

  /**
   * Starts a span under the run for a step reins takes between model calls
   * (`gen_ai.operation.name` is `operation`); the caller ends it, or the run's end does.
   */
  step(name: string, operation: string, attributes: Attributes, start?: number): Span {
    const span = this.#setup.tracer.startSpan(name, {
      kind: SpanKind.INTERNAL,
      ...(start === undefined ? {} : { startTime: start }),
      attributes: { ...this.#base, "gen_ai.operation.name": operation, ...attributes },
    }, this.#context);
    this.#steps.add(span);
    return span;
  }

  /** A model call begins: its `chat` span, and the context to make the call in. */
  chatStarted(request: ModelRequest): Context {
    this.#chat?.close();
    this.#chat = new ChatSpan(this.#setup, this.#context, this.#base, this.#model, request);
    return this.#chat.context;
  }

  /** The model answered (billing comes with the `turn` event). */
  chatReturned(request: ModelRequest, reply: ModelReply): void {
    this.#chat?.returned(request, reply);
  }

  /** The model call failed (after the client's retries). */
  chatFailed(request: ModelRequest, error: unknown): void {
    this.#chat?.failed(request, error);
    this.#chat = null;
  }

  /** The open model call was billed (a turn, or a call of a step such as a summary). */
  billChat(bill: ChatBill): void {
    this.#chat?.billed(bill);
    this.#chat = null;
  }

  /** The span of call `callId` of this run, while it runs. */
  openTool(callId: string): Span | undefined {
    return this.#setup.toolSpans.get(toolKey(this.#runId, callId))?.span;
  }

  /** A tool began: its `execute_tool` span (a child run it starts nests under it). */
  toolStart(e: ToolStartEvent): void {
    const key = toolKey(this.#runId, e.callId);
    this.#setup.toolSpans.get(key)?.span.end();
    const span = this.#toolSpan(e.toolName, e.callId);
    if (this.#setup.capture) span.setAttribute("gen_ai.tool.call.arguments", e.args);
    this.#setup.toolSpans.set(key, { span, toolName: e.toolName });
    this.#tools.add(key);
  }

  /** A tool call has its result (or error, or is suspended): its span ends saying which. */
  toolResult(e: ToolResultEvent): void {
    const key = toolKey(this.#runId, e.callId);
    // Served from the dedupe cache, or refused before it started: a span of its own.
    const span = this.#setup.toolSpans.get(key)?.span ??
      this.#toolSpan(e.toolName, e.callId, performance.timeOrigin + performance.now() - e.ms);
    this.#setup.toolSpans.delete(key);
    this.#tools.delete(key);
    if (e.cached) {
      this.#dedupeHits += 1;
      span.setAttribute("reins.tool.cached", true);
    }
    // A fork's read served from its source's recorded result: not run, $0.
    if (e.replayed) {
      span.setAttributes({
        "reins.tool.replayed_from_run": e.replayed.runId,
        "reins.tool.replayed_from_call": e.replayed.callId,
      });
    }
    if (e.suspended) {
      span.setAttributes({
        "reins.tool.suspended": e.suspended.interruption.type,
        "reins.tool.suspended_reason": e.suspended.reason,
      });
    } else if (!e.ok) {
      span.setAttribute("error.type", "tool_error");
      span.setStatus(errorStatus(e.error));
    }
    span.end();
  }

  /** A call awaits a person: the wait's span runs until this execution ends. */
  approvalRequired(e: ApprovalRequiredEvent): void {
    this.step(`await_approval ${e.toolName}`, "await_approval", {
      "gen_ai.tool.name": e.toolName,
      "gen_ai.tool.call.id": e.callId,
      "reins.approval.why": e.why,
    });
  }

  /** The run's exit, applied when the execution ends. */
  stopped(e: RunStoppedEvent): void {
    this.#stop = e;
  }

  /** The execution is over: every span it opened ends, the run span with the exit on it. */
  end(outcome: { state: RunState } | { error: unknown }): void {
    this.#chat?.close(); // a reply without valid usage (an estimate), or a Stop
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

  #exit(state: RunState): void {
    const i = state.interruption;
    this.span.setAttributes({
      "reins.run.status": state.status,
      ...(i ? { "reins.run.interruption": i.type } : {}),
      "reins.run.stop_reason": state.stopReason ?? this.#stop?.reason ?? "",
      "reins.run.turns": state.turns,
      "reins.run.cost_usd": state.costUsd,
      "reins.run.child_cost_usd": state.childCostUsd,
      "reins.run.estimated_usd": state.estimatedUsd,
      "reins.budget.left_usd": Math.max(0, state.limits.maxBudgetUsd - state.costUsd),
      "reins.dedupe.hits": this.#dedupeHits,
      "gen_ai.usage.input_tokens": state.usage.prompt_tokens,
      "gen_ai.usage.output_tokens": state.usage.completion_tokens,
    });
    if (state.status === "failed") {
      this.span.setAttribute("error.type", "run_failed");
      this.span.setStatus(errorStatus(state.stopReason));
    }
  }

  /** Spans start when their event arrives (the sink is called as it is emitted), or at `start` (epoch ms). */
  #toolSpan(toolName: string, callId: string, start?: number): Span {
    return this.#setup.tracer.startSpan(`execute_tool ${toolName}`, {
      kind: SpanKind.INTERNAL,
      ...(start === undefined ? {} : { startTime: start }),
      attributes: {
        ...this.#base,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": toolName,
        "gen_ai.tool.call.id": callId,
        "gen_ai.tool.type": "function",
      },
    }, this.#context);
  }
}
