/**
 * How a run ends, as data: its status, why a resumable run stopped (the
 * interruption), and one sentence. Every exit the loop takes, and every
 * verdict a stop condition returns, is built here.
 *
 * @module
 */
import type { OutputIssue } from "./output.ts";

/** Where a run is. Every status but `running` is an exit. */
export type RunStatus =
  | "running"
  | "completed"
  | "failed"
  | "max_turns_exceeded"
  | "budget_exceeded"
  | "interrupted";

/** Why a resumable run stopped, as data. */
export type Interruption =
  | {
    type: "approval";
    /** The call awaiting a verdict. */
    callId: string;
    toolName: string;
    /** Parsed arguments (the raw text when they are not JSON). */
    args: unknown;
    /** Why a person must decide: the tool needs approval, or a write may or may not have happened. */
    why: "needs_approval" | "uncertain_effect";
    /** The run that holds the call, when it is a descendant of this one (subagents). */
    runId?: string;
  }
  | { type: "max_turns" }
  | { type: "max_budget" }
  | { type: "cancelled"; reason: string };

/**
 * Why a run failed, as data, when the failure has a shape of its own (other
 * failures carry their words in `error`). A union: more kinds may join.
 */
export type Failure =
  | {
    /** The final answer did not pass the run's output schema, and no repair is left. */
    kind: "invalid_output";
    /** The last answer as the model gave it (also in the transcript). */
    raw: string;
    /** What is wrong with it: path and message of each issue. */
    issues: OutputIssue[];
  }
  | {
    /**
     * The model refused to answer a typed run (its reply ended `content_filter`:
     * a refusal, or a provider's filter) with words that fail the schema; not repaired.
     */
    kind: "refusal";
    /** The reply's words as the model gave them, empty when a filter left none. */
    raw: string;
  };

/** How a run ends; build one with {@link exit}. */
export type Exit =
  | { status: "completed"; interruption: null; reason: string }
  | { status: "failed"; interruption: null; reason: string; error?: string; failure?: Failure }
  | { status: "max_turns_exceeded"; interruption: { type: "max_turns" }; reason: string }
  | { status: "budget_exceeded"; interruption: { type: "max_budget" }; reason: string }
  | { status: "interrupted"; interruption: Interruption; reason: string };

/** The text of a signal's abort reason. */
export function abortReason(signal: AbortSignal): string {
  const r = signal.reason;
  if (typeof r === "string") return r;
  if (r instanceof Error) return r.message || r.name;
  return String(r);
}

/**
 * The constructors of {@link Exit}: the only place an exit's status and
 * interruption are paired.
 *
 * @example
 * ```ts
 * import { exit } from "./exit.ts";
 * console.log(exit.maxTurns("turn cap reached").interruption); // { type: "max_turns" }
 * console.log(exit.failed("boom", "boom").status); // "failed"
 * ```
 */
export const exit: {
  readonly completed: (reason: string) => Exit;
  readonly failed: (reason: string, error?: string) => Exit;
  readonly invalidOutput: (raw: string, issues: OutputIssue[], repairs: number) => Exit;
  readonly refusal: (raw: string) => Exit;
  readonly maxTurns: (reason: string) => Exit;
  readonly budget: (reason: string) => Exit;
  readonly interrupted: (interruption: Interruption, reason: string) => Exit;
  readonly cancelled: (signal: AbortSignal) => Exit;
} = {
  /** The run is done (the model answered, or a condition was met). */
  completed(reason: string): Exit {
    return { status: "completed", interruption: null, reason };
  },
  /** The run failed for good; `error` is stored as the run's error. */
  failed(reason: string, error?: string): Exit {
    return error === undefined
      ? { status: "failed", interruption: null, reason }
      : { status: "failed", interruption: null, reason, error };
  },
  /** The final answer failed the output schema after `repairs` repair turns. */
  invalidOutput(raw: string, issues: OutputIssue[], repairs: number): Exit {
    const n = issues.length;
    const reason = `invalid output: the answer still fails the output schema after ${repairs} ` +
      `repair${repairs === 1 ? "" : "s"}; ${n} issue${n === 1 ? "" : "s"}, the first at ` +
      `${issues[0]?.path ?? "(root)"}: ${issues[0]?.message ?? "?"}`;
    return {
      status: "failed",
      interruption: null,
      reason,
      error: reason,
      failure: { kind: "invalid_output", raw, issues },
    };
  },
  /** A typed run's model refused to answer (see {@link Failure}); its words are the error. */
  refusal(raw: string): Exit {
    const reason = raw
      ? "the model refused to answer (content_filter)"
      : "the reply was filtered (content_filter) and holds no words";
    return {
      status: "failed",
      interruption: null,
      reason,
      error: raw || reason,
      failure: { kind: "refusal", raw },
    };
  },
  /** The turn cap stopped the run (resumable with a higher cap). */
  maxTurns(reason: string): Exit {
    return { status: "max_turns_exceeded", interruption: { type: "max_turns" }, reason };
  },
  /** The budget stopped the run (resumable with a larger budget). */
  budget(reason: string): Exit {
    return { status: "budget_exceeded", interruption: { type: "max_budget" }, reason };
  },
  /** The run paused for a person's verdict or an outside event (resumable). */
  interrupted(interruption: Interruption, reason: string): Exit {
    return { status: "interrupted", interruption, reason };
  },
  /** The run was stopped by an aborted signal, with its reason. */
  cancelled(signal: AbortSignal): Exit {
    const reason = abortReason(signal);
    return {
      status: "interrupted",
      interruption: { type: "cancelled", reason },
      reason: `cancelled: ${reason}`,
    };
  },
};
