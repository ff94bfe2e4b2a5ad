/**
 * A run is plain, serializable data: `JSON.stringify` it, store it anywhere,
 * and `run()` it again in another process. Nothing about a run lives in a closure.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolCall, Usage } from "./messages.ts";
import { checkLimits, type LimitsInput, type RunLimits } from "./limits.ts";
import { isoNow } from "./iso_now.ts";
import type { Failure, Interruption, RunStatus } from "./exit.ts";
import type { JsonSchema } from "./output.ts";
import type { ContextState } from "./context_view.ts";

export type { Failure, Interruption, RunStatus } from "./exit.ts";

/** JSON data: what a run's output may be (text, or a typed run's parsed value). */
export type JsonValue = string | number | boolean | null | JsonValue[] | {
  [key: string]: JsonValue;
};

/** Every status, in lifecycle order. */
export const RUN_STATUSES: readonly RunStatus[] = [
  "running",
  "completed",
  "failed",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted",
];

/** The exits a run can be continued from (with new limits, a verdict, or a resume). */
export const RESUMABLE_STATUSES: readonly RunStatus[] = [
  "running",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted",
];

/** A rejected call and the words written into the transcript for it. */
export interface Rejection {
  /** The id of the rejected tool call. */
  callId: string;
  /** The text written into the transcript as the call's result. */
  reason: string;
}

/**
 * A model call recorded before it is sent. After a crash the provider may
 * have billed it: a resume counts its prompt as spent (`estimatedUsd`).
 */
export interface ModelCallMarker {
  /** The turn the call would be (the run's turn count after it). */
  turn: number;
  /** ISO time it was recorded. */
  since: string;
  /** Prompt tokens the provider last reported for this run (null: none known here). */
  promptTokens: number | null;
  /**
   * Set for a compaction's summary call (then `promptTokens` is its counted
   * prompt, and a resume summarizes again); absent for a turn.
   */
  kind?: "compaction";
}

/**
 * The current schema version of {@link RunState}. Still 1: the fields added
 * since (`promptRatio`, `modelCall` and its `kind`, `estimatedUsd`, `context`, a
 * header's `overflow`, a tool call's `wireId`, `outputSchema`, `outputRepairs`, `failure`,
 * `forkedFrom`) are optional, and `output` may now be any JSON value, so every record of schema 1 loads as
 * before (tests/fixtures/record_v1.json).
 */
export const RUN_SCHEMA_VERSION = 1;

/** The whole state of one run. Plain data: safe to `JSON.stringify` and store. */
export interface RunState {
  /**
   * The schema version this state was written with ({@link RUN_SCHEMA_VERSION}).
   * Storage bookkeeping, left out of the documentation.
   *
   * @ignore
   */
  $schemaVersion: typeof RUN_SCHEMA_VERSION;
  /** This run's unique id (a random UUID unless given). */
  runId: string;
  /** The run whose tool call started this one (subagents), else null. */
  parentId: string | null;
  /** The call id in the parent that started this run, else null. */
  parentCallId: string | null;
  /** The root of this run's tree (itself for a top-level run). */
  rootId: string;
  /** Where the run is: `running`, or the exit it took. */
  status: RunStatus;
  /** Why a resumable run stopped, as data; null while running or after a final exit. */
  interruption: Interruption | null;
  /** One sentence on why the run stopped (null while running). */
  stopReason: string | null;
  /** The transcript: system prompt, task, replies and tool results, oldest first. */
  messages: ChatMessage[];
  /** The model that last ran it (a scenario name for the scripted provider). */
  model: string | null;
  /**
   * The name of the agent this run is of (`defineAgent`): a process executes
   * only runs of agents it serves. Absent on runs made without an agent.
   */
  agent?: string;
  /** The limits in force (the last `run()` call's, else the defaults). */
  limits: RunLimits;
  /** Model calls made (each one billed). */
  turns: number;
  /**
   * Tool executions started: a call cut short (a Stop, a crash) and run
   * again when the run goes on counts each time; cached and rejected calls
   * do not count.
   */
  toolRuns: number;
  /** Tokens of this run's own model calls. */
  usage: Usage;
  /** USD spent by this run and, added as it is spent, by its descendants. */
  costUsd: number;
  /**
   * The provider's prompt count over reins' own count of the same prompt, the
   * highest seen (hard budget mode scales its prompt estimate by it); absent
   * until a call was counted both ways.
   */
  promptRatio?: number;
  /**
   * W3C trace context (`traceparent`) of the span of this run's first
   * execution, set by a telemetry observer (see `RunOptions.observe`): an
   * execution elsewhere (a hand-over, a verdict, a follow-up) joins that trace.
   */
  traceparent?: string;
  /** Part of `costUsd` spent by descendants. */
  childCostUsd: number;
  /** Descendants' spend by the call that started them (call id -> USD). */
  callSpend: Record<string, number>;
  /** Calls a person approved (they may now run). */
  approved: string[];
  /** Calls a person rejected, with the words written for the model. */
  rejected: Rejection[];
  /** Write calls that started but have no result yet (the effect is uncertain after a crash). */
  inFlight: string[];
  /**
   * A model call that may be on the wire: committed before it is sent (in the
   * save before it), cleared by the save of its reply. A run resumed with it
   * set counts that call as spent, as an estimate (see {@link ModelCallMarker}).
   * Crash bookkeeping, left out of the documentation.
   *
   * @ignore
   */
  modelCall: ModelCallMarker | null;
  /** Part of `costUsd` that is estimated: calls a crash left unfinished (see `modelCall`). */
  estimatedUsd: number;
  /**
   * How the prompt is made from the transcript once compacted (see
   * `ContextPolicy`); absent until the first compaction. The transcript
   * itself is never cut: it is the record.
   */
  context?: ContextState;
  /**
   * Dedupe index: call signature (tool + canonical args) -> id of the call whose
   * successful result answers it. Filled only when `dedupe` is on.
   */
  resultCache: Record<string, string>;
  /**
   * The final answer, when the model gave one: its text, or, for a run with an
   * output schema (`outputSchema` set), the parsed value (the text stays in the
   * transcript).
   */
  output: JsonValue | null;
  /** The JSON Schema the final answer must pass (runs given `output`); absent otherwise. */
  outputSchema?: JsonSchema;
  /**
   * Where the repair turns' prompts are in `messages` (indexes): the answer
   * before each failed the output schema. Absent until the first repair.
   */
  outputRepairs?: number[];
  /** The failure, when the run failed. */
  error: string | null;
  /** Why the run failed, as data, when the failure has a shape (e.g. `invalid_output`). */
  failure?: Failure;
  /** ISO time the run was created. */
  createdAt: string;
  /** ISO time the run was last saved. */
  updatedAt: string;
  /** Set on a fork (see `forkState`): the run and turn it was forked from. */
  forkedFrom?: ForkOrigin;
}

/** Where a fork came from: the source run and the turn it was forked at. */
export interface ForkOrigin {
  /** The source run. */
  runId: string;
  /** The source's turn the fork's transcript ends with (0: before its first call). */
  turn: number;
}

/** Options of {@link newRun}. */
export interface NewRunOptions {
  /** A system prompt put first in the transcript. */
  system?: string | undefined;
  /** An explicit id (default: a random UUID, unguessable). */
  runId?: string | undefined;
  /** For child runs: the parent's id, root id and call id. */
  parent?: { runId: string; rootId: string; callId: string } | undefined;
  /** The model name, if known up front. */
  model?: string | undefined;
  /** The name of the agent the run is of (see {@link RunState.agent}). */
  agent?: string | undefined;
  /** Limits stored with the run (default: `DEFAULT_LIMITS`). */
  limits?: LimitsInput | undefined;
}

/**
 * Creates a fresh run for a task.
 *
 * @example
 * ```ts
 * import { newRun } from "./state.ts";
 * const state = newRun("Which file mentions a timeout?", { system: "Be brief." });
 * console.log(state.status, state.messages.length); // running 2
 * ```
 */
export function newRun(task: string, options: NewRunOptions = {}): RunState {
  if (typeof task !== "string" || task.trim() === "") {
    throw new TypeError("newRun(task): task must be a non-empty string");
  }
  const runId = options.runId ?? crypto.randomUUID();
  const now = isoNow();
  const messages: ChatMessage[] = [];
  if (options.system) messages.push({ role: "system", content: options.system });
  messages.push({ role: "user", content: task });
  return {
    $schemaVersion: RUN_SCHEMA_VERSION,
    runId,
    parentId: options.parent?.runId ?? null,
    parentCallId: options.parent?.callId ?? null,
    rootId: options.parent?.rootId ?? runId,
    status: "running",
    interruption: null,
    stopReason: null,
    messages,
    model: options.model ?? null,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    limits: checkLimits(options.limits ?? {}),
    turns: 0,
    toolRuns: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    costUsd: 0,
    childCostUsd: 0,
    callSpend: {},
    approved: [],
    rejected: [],
    inFlight: [],
    modelCall: null,
    estimatedUsd: 0,
    resultCache: {},
    output: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The tool calls of the last assistant message that have no result yet.
 * A run always runs these before it asks the model anything, which is what
 * makes resume and approval the same code path as a normal turn.
 *
 * @example
 * ```ts
 * import { newRun, pending } from "./state.ts";
 * const s = newRun("hi");
 * s.messages.push({ role: "assistant", content: null, tool_calls: [
 *   { id: "c1", type: "function", function: { name: "list_files", arguments: "{}" } },
 * ] });
 * console.log(pending(s).map((c) => c.id)); // ["c1"]
 * ```
 */
export function pending(state: Pick<RunState, "messages">): ToolCall[] {
  const messages = state.messages;
  // Walk back to the last assistant message; tool messages after it answer its calls.
  const answered = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "tool") answered.add(m.tool_call_id);
    else if (m.role === "assistant") {
      return (m.tool_calls ?? []).filter((c) => !answered.has(c.id));
    } else return [];
  }
  return [];
}

/** The last assistant message, if the transcript has one. */
export function lastAssistant(state: Pick<RunState, "messages">): AssistantMessage | undefined {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (m.role === "assistant") return m;
  }
  return undefined;
}
