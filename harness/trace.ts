/**
 * The trace: one JSON object per event, each with the run id, so a run spread
 * over processes and days is one query.
 *
 * @module
 */
import type { Interruption, RunStatus } from "./state.ts";

/** Fields every event has. */
export interface TraceBase {
  runId: string;
  /** ISO time the event was emitted. */
  at: string;
}

/** A model call returned. */
export interface TurnEvent extends TraceBase {
  type: "turn";
  turn: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** This call's cost. */
  turnCostUsd: number;
  /** The run's cost so far (running total). */
  costUsd: number;
  finish: string;
  /** ms spent waiting for the model. */
  ms: number;
}

/** A tool began. */
export interface ToolStartEvent extends TraceBase {
  type: "tool_start";
  toolName: string;
  callId: string;
  args: string;
}

/** A tool reported progress. */
export interface ToolProgressEvent extends TraceBase {
  type: "tool_progress";
  toolName: string;
  callId: string;
  label: string;
  /** Fraction done in [0, 1], when the tool knows it. */
  fraction?: number;
}

/** A tool call got its result (or error) into the transcript. */
export interface ToolResultEvent extends TraceBase {
  type: "tool_result";
  toolName: string;
  callId: string;
  ms: number;
  ok: boolean;
  /** Served from the dedupe cache instead of running. */
  cached?: boolean;
  /** The error text, when not ok. */
  error?: string;
}

/** A call awaits a person's verdict. */
export interface ApprovalRequiredEvent extends TraceBase {
  type: "approval_required";
  toolName: string;
  callId: string;
  args: string;
  why: "needs_approval" | "uncertain_effect";
}

/** The run exited (for now). */
export interface RunStoppedEvent extends TraceBase {
  type: "run_stopped";
  status: RunStatus;
  reason: string;
  interruption: Interruption | null;
  turns: number;
  costUsd: number;
}

/** Any trace event. */
export type TraceEvent =
  | TurnEvent
  | ToolStartEvent
  | ToolProgressEvent
  | ToolResultEvent
  | ApprovalRequiredEvent
  | RunStoppedEvent;

/** Distributes `Omit` over the union so each event keeps its own fields. */
export type TraceEventInput = TraceEvent extends infer E
  ? E extends TraceEvent ? Omit<E, "at"> : never
  : never;

/** Receives trace events. May be async; the loop awaits it so KV sinks keep order. */
export type TraceSink = (event: TraceEvent) => void | Promise<void>;

/**
 * A sink that keeps events in an array.
 *
 * @example
 * ```ts
 * import { memorySink } from "./trace.ts";
 * const { sink, events } = memorySink();
 * sink({ type: "tool_start", runId: "r", at: "", toolName: "t", callId: "c", args: "{}" });
 * console.log(events.length); // 1
 * ```
 */
export function memorySink(): { sink: TraceSink; events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  return { sink: (e) => void events.push(e), events };
}

/**
 * A sink that writes one JSON line per event to a writer (a file, stdout).
 *
 * @example
 * ```ts
 * import { jsonlSink } from "./trace.ts";
 * const sink = jsonlSink((line) => console.log(line.trimEnd()));
 * sink({ type: "tool_start", runId: "r", at: "", toolName: "t", callId: "c", args: "{}" });
 * ```
 */
export function jsonlSink(write: (line: string) => void | Promise<void>): TraceSink {
  return (event) => write(JSON.stringify(event) + "\n");
}

/**
 * A sink appending JSONL to a file (created if missing).
 *
 * @example
 * ```ts
 * import { fileSink } from "./trace.ts";
 * const path = await Deno.makeTempFile();
 * const sink = fileSink(path);
 * await sink({ type: "tool_start", runId: "r", at: "", toolName: "t", callId: "c", args: "{}" });
 * await Deno.remove(path);
 * ```
 */
export function fileSink(path: string): TraceSink {
  return jsonlSink((line) => Deno.writeTextFile(path, line, { append: true }));
}

/**
 * Fans events out to several sinks, in order.
 *
 * @example
 * ```ts
 * import { combineSinks, memorySink } from "./trace.ts";
 * const a = memorySink(), b = memorySink();
 * combineSinks(a.sink, b.sink);
 * ```
 */
export function combineSinks(...sinks: (TraceSink | undefined)[]): TraceSink {
  const list = sinks.filter((s): s is TraceSink => !!s);
  return async (event) => {
    for (const s of list) await s(event);
  };
}
