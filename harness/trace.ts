/**
 * The trace: one JSON object per event, each with the run id, so a run spread
 * over processes and days is one query.
 *
 * @module
 */
import type { Interruption, RunStatus } from "./exit.ts";
import type { OutputIssue } from "./output.ts";

/** Fields every event has. */
export interface TraceBase {
  /** The run the event belongs to. */
  runId: string;
  /** ISO time the event was emitted. */
  at: string;
}

/** A model call returned. */
export interface TurnEvent extends TraceBase {
  /** Event kind. */
  type: "turn";
  /** The run's turn count after this call (1 for the first model call). */
  turn: number;
  /** Prompt (input) tokens of this call. */
  prompt_tokens: number;
  /** Completion (output) tokens of this call. */
  completion_tokens: number;
  /** `prompt_tokens + completion_tokens`. */
  total_tokens: number;
  /** This call's cost. */
  turnCostUsd: number;
  /** The run's cost so far (running total). */
  costUsd: number;
  /** The finish reason the endpoint gave (`stop`, `tool_calls`, `length`, `content_filter`, …). */
  finish: string;
  /** ms spent waiting for the model. */
  ms: number;
}

/** A tool began. */
export interface ToolStartEvent extends TraceBase {
  /** Event kind. */
  type: "tool_start";
  /** The tool's name. */
  toolName: string;
  /** The model's id for this tool call. */
  callId: string;
  /** The call's arguments as the model wrote them (raw JSON text). */
  args: string;
}

/** A tool reported progress. */
export interface ToolProgressEvent extends TraceBase {
  /** Event kind. */
  type: "tool_progress";
  /** The tool's name. */
  toolName: string;
  /** The model's id for this tool call. */
  callId: string;
  /** What the tool says it has done so far, e.g. `scanned 200 of 1200 files`. */
  label: string;
  /** Fraction done in [0, 1], when the tool knows it. */
  fraction?: number | undefined;
}

/** A tool call got its result (or error) into the transcript. */
export interface ToolResultEvent extends TraceBase {
  /** Event kind. */
  type: "tool_result";
  /** The tool's name. */
  toolName: string;
  /** The model's id for this tool call. */
  callId: string;
  /** ms the tool took to run (0 when served from cache). */
  ms: number;
  /**
   * Whether the call succeeded (false: its error went into the transcript, or
   * it is `suspended`).
   */
  ok: boolean;
  /** Served from the dedupe cache instead of running. */
  cached?: boolean;
  /**
   * Served from the recorded result of the same read-only call in the run
   * this one was forked from (not run, $0): that run and call.
   */
  replayed?: { runId: string; callId: string };
  /** The error text, when not ok. */
  error?: string;
  /**
   * Set when the call has no result yet and holds its run: a subagent it
   * started stopped awaiting a verdict (`interruption.runId` is the run that
   * holds the call awaiting it) or was cancelled. Nothing went into the
   * transcript; the run stops `interrupted` with this interruption.
   */
  suspended?: { interruption: Interruption; reason: string };
}

/** A call awaits a person's verdict. */
export interface ApprovalRequiredEvent extends TraceBase {
  /** Event kind. */
  type: "approval_required";
  /** The tool's name. */
  toolName: string;
  /** The model's id for the call awaiting a verdict. */
  callId: string;
  /** The call's arguments as the model wrote them (raw JSON text). */
  args: string;
  /** Why a person must decide: the tool needs approval, or a write may or may not have happened. */
  why: "needs_approval" | "uncertain_effect";
}

/** The run exited (for now). */
export interface RunStoppedEvent extends TraceBase {
  /** Event kind. */
  type: "run_stopped";
  /** The exit the run took. */
  status: RunStatus;
  /** One sentence on why it stopped. */
  reason: string;
  /** Why a resumable run stopped, as data; null for a final exit. */
  interruption: Interruption | null;
  /** Model calls made so far. */
  turns: number;
  /** USD spent so far, descendants included. */
  costUsd: number;
}

/**
 * The process executing the run went away (an instance evicted, a worker shut
 * down) and handed the run over: checkpointed, stored `running` again, its
 * lease released, so another process continues it. Not an exit: it takes the
 * place of the `run_stopped` the interrupted execution would have emitted,
 * and the run's trace still ends with the `run_stopped` of whoever finishes it.
 */
export interface RunHandedOverEvent extends TraceBase {
  /** Event kind. */
  type: "run_handed_over";
  /** Why the execution here ended. */
  reason: string;
  /** The lease owner (process) that handed it over. */
  by: string;
  /** Model calls made so far. */
  turns: number;
  /** USD spent so far, descendants included. */
  costUsd: number;
}

/**
 * A model call whose reply never came back was counted as spent: an estimate,
 * since the provider may or may not have billed it. Either a resume found a
 * call a crash left unfinished (recorded, never answered: its prompt is
 * counted), or an attempt's reply was lost on the way (a stream cut short, a
 * connection dropped mid-reply: its prompt and the reply tokens that arrived).
 */
export interface SpendEstimatedEvent extends TraceBase {
  /** Event kind. */
  type: "spend_estimated";
  /** The turn the unfinished call would have been. */
  turn: number;
  /** Prompt tokens counted for it. */
  prompt_tokens: number;
  /**
   * Where they come from: the provider's last reported prompt, or a local
   * count (a crash's unfinished call); `lost_reply`: an attempt whose reply
   * was lost or refused as malformed, its prompt as the provider reported it
   * for that attempt or for the same request when a retry answered (else as
   * for a crash), its reply tokens as reported, else counted locally.
   */
  basis: "last_reported_prompt" | "local_count" | "lost_reply";
  /** Reply tokens counted for a lost reply (`lost_reply` only). */
  completion_tokens?: number;
  /** Why the reply was lost (`lost_reply` only). */
  reason?: string;
  /** Set when the unfinished call was a compaction's summary call (not a turn). */
  kind?: "compaction";
  /** USD added to the run's cost (and to `estimatedUsd`). */
  usd: number;
  /** The run's cost so far, the estimate included. */
  costUsd: number;
}

/**
 * A piece of the model's reply text, as it streams. For watching only: the
 * committed reply (the transcript) is the record, and a reply re-asked after
 * a crash streams again. Stored traces may join several pieces into one.
 */
export interface TextDeltaEvent extends TraceBase {
  /** Event kind. */
  type: "text_delta";
  /** The text that arrived, in order; a reply's deltas join to its text. */
  delta: string;
  /** The turn the reply will be (the run's turn count after the call). */
  turn?: number;
  /**
   * Set when the text of this turn streamed so far is void (the model call is
   * being retried after its stream broke): drop it, then append `delta`
   * (which may be empty). A reply's deltas after its last reset join to its text.
   */
  reset?: true;
}

/** In hard budget mode, a reply cost more than the budget had left (the provider overspent). */
export interface BudgetOverspentEvent extends TraceBase {
  /** Event kind. */
  type: "budget_overspent";
  /** What the reply cost. */
  turnCostUsd: number;
  /** What the budget had left when the call was made. */
  leftUsd: number;
  /** By how much the budget is overspent now. */
  overUsd: number;
  /** The `max_tokens` the call asked for. */
  maxTokens: number | null;
  /** Reply tokens the provider billed. */
  completion_tokens: number;
}

/** A person's follow-up message was added to the run (see `followUp`): a new exchange starts. */
export interface UserMessageEvent extends TraceBase {
  /** Event kind. */
  type: "user_message";
  /** The message's position in the transcript. */
  index: number;
  /** Model calls made before it. */
  turns: number;
  /** The message. */
  content: string;
}

/**
 * The prompt was compacted before a model call (see `ContextPolicy`): old
 * tool results elided, or older turns summarized by a model call. Not a turn;
 * a summary's cost is part of the run's cost.
 */
export interface CompactionEvent extends TraceBase {
  /** Event kind. */
  type: "compaction";
  /** The run's compaction count after this one (1 for the first). */
  compaction: number;
  /** What was done: tool results elided, or turns summarized (and results elided). */
  strategy: "elide" | "summarize";
  /** Why: the prompt was over the trigger, or the provider refused it as too long. */
  reason: "trigger" | "context_length";
  /** The turn the next model call will be. */
  turn: number;
  /** Prompt tokens of the next call before the compaction (o200k_base count). */
  tokensBefore: number;
  /** Prompt tokens of the next call after it. */
  tokensAfter: number;
  /** Prompt tokens of the summary call (0 for an elision). */
  prompt_tokens: number;
  /** Completion tokens of the summary call (0 for an elision). */
  completion_tokens: number;
  /** The cost quoted before the summary call ran (its prompt, and its reply at the cap). */
  quotedUsd: number;
  /** What the compaction cost (0 for an elision). */
  compactionCostUsd: number;
  /** The run's cost so far (running total). */
  costUsd: number;
  /** Model turns the summary covers now (0 without a summary). */
  summarizedTurns: number;
  /** Tool results shown as a stub from now on (this compaction's). */
  elided: number;
  /** The summary written (kept in the trace: the record holds only the latest). */
  summary?: string;
  /** ms spent (the summary call). */
  ms: number;
}

/**
 * The final answer failed the run's output schema: a repair turn follows
 * (`repair` is its number), or none is left (`repair` null: the run fails
 * `invalid_output`, unless a limit stopped it first).
 */
export interface OutputInvalidEvent extends TraceBase {
  /** Event kind. */
  type: "output_invalid";
  /** The turn that gave the answer. */
  turn: number;
  /** What is wrong: path and message of each issue. */
  issues: OutputIssue[];
  /** The number of the repair asked for (1 for the first), or null when none is left. */
  repair: number | null;
}

/** Any trace event. */
export type TraceEvent =
  | TurnEvent
  | CompactionEvent
  | SpendEstimatedEvent
  | ToolStartEvent
  | ToolProgressEvent
  | ToolResultEvent
  | ApprovalRequiredEvent
  | TextDeltaEvent
  | BudgetOverspentEvent
  | OutputInvalidEvent
  | RunHandedOverEvent
  | UserMessageEvent
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
