/**
 * The error family callers catch. Bad arguments are plain `TypeError`/`RangeError`;
 * these are for the harness's own, nameable failures.
 *
 * @module
 */
import type { Interruption } from "./exit.ts";
import type { LostReply } from "./model.ts";

/**
 * Base class of every error reins throws on purpose.
 *
 * @example
 * ```ts
 * import { ReinsError, RunStateError } from "./errors.ts";
 * const e = new RunStateError("r1", "completed", "resume");
 * console.log(e instanceof ReinsError, e.message);
 * ```
 */
export class ReinsError extends Error {
  /** Creates a reins error with a message. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * An operation is not allowed in the run's current status, e.g.
 * `Cannot resume run "x": status is completed`.
 *
 * @example
 * ```ts
 * import { RunStateError } from "./errors.ts";
 * const e = new RunStateError("r1", "completed", "resume");
 * console.log(e.message);
 * // Cannot resume run "r1": status is completed
 * ```
 */
export class RunStateError extends ReinsError {
  /** The run concerned. */
  readonly runId: string;
  /** The run's status when the operation was refused. */
  readonly status: string;
  /** Creates the error; `action` is a verb phrase such as `resume` or `approve call "c2" of`. */
  constructor(runId: string, status: string, action: string, detail?: string) {
    super(`Cannot ${action} run "${runId}": ${detail ?? `status is ${status}`}`);
    this.runId = runId;
    this.status = status;
  }
}

/**
 * Another executor advanced the run first (its stored version changed under us).
 *
 * @example
 * ```ts
 * import { RunConflictError } from "./errors.ts";
 * const e = new RunConflictError("r1");
 * console.log(e.message);
 * // Run "r1" was changed concurrently: another process advanced it first
 * ```
 */
export class RunConflictError extends ReinsError {
  /** The run concerned. */
  readonly runId: string;
  /** Creates the error. */
  constructor(runId: string, detail = "another process advanced it first") {
    super(`Run "${runId}" was changed concurrently: ${detail}`);
    this.runId = runId;
  }
}

/**
 * No run with that id exists in the store.
 *
 * @example
 * ```ts
 * import { RunNotFoundError } from "./errors.ts";
 * console.log(new RunNotFoundError("r1").message); // Run "r1" not found
 * ```
 */
export class RunNotFoundError extends ReinsError {
  /** The run concerned. */
  readonly runId: string;
  /** Creates the error. */
  constructor(runId: string) {
    super(`Run "${runId}" not found`);
    this.runId = runId;
  }
}

/**
 * The model endpoint failed in a way retrying did not fix (auth, malformed
 * reply, retries exhausted). The loop turns it into a `failed` run.
 *
 * @example
 * ```ts
 * import { ModelError } from "./errors.ts";
 * const e = new ModelError("auth", "401 Unauthorized from http://x/chat/completions");
 * console.log(e.message);
 * // 401 Unauthorized from http://x/chat/completions
 * ```
 */
export class ModelError extends ReinsError {
  /** What went wrong, for callers that branch on it. */
  readonly kind:
    | "auth"
    | "rate_limited"
    | "server"
    | "network"
    | "malformed"
    | "bad_request"
    /** The prompt is longer than the model's context window (OpenAI `context_length_exceeded`). */
    | "context_length";
  /** HTTP status, when there was one. */
  readonly status?: number | undefined;
  /** Attempts whose reply was lost on the way (the provider may have billed them). */
  readonly lost: readonly LostReply[];
  /** Creates the error. */
  constructor(
    kind: ModelError["kind"],
    message: string,
    status?: number,
    lost: readonly LostReply[] = [],
  ) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.lost = lost;
  }
}

/**
 * Thrown by a tool for a failure that no message to the model can fix (a
 * permission the process lacks, a resource that is gone). It stops the run
 * `failed` with the message as the reason.
 *
 * @example
 * ```ts
 * import { PermanentToolError } from "./errors.ts";
 * const e = new PermanentToolError("permission denied: /etc/shadow");
 * console.log(e.message);
 * // permission denied: /etc/shadow
 * ```
 */
export class PermanentToolError extends ReinsError {}

/**
 * Thrown by a tool to stop its run `interrupted` with the call left pending,
 * e.g. when a child run it started awaits a person's verdict. Resuming the
 * run runs the call again (and the tool resumes its child).
 *
 * @example
 * ```ts
 * import { SuspendRun } from "./errors.ts";
 * const e = new SuspendRun({ type: "cancelled", reason: "child stopped" }, "child stopped");
 * console.log(e.message);
 * // child stopped
 * ```
 */
export class SuspendRun extends ReinsError {
  /** The interruption the run stops with. */
  readonly interruption: Interruption;
  /** Creates the signal-like error. */
  constructor(interruption: Interruption, reason: string) {
    super(reason);
    this.interruption = interruption;
  }
}

/**
 * A save found the run's record over the ceiling a run may store: the store
 * kept it `failed` with its long texts cut and `reason`; `run()` ends the run
 * `failed` with that reason rather than throwing.
 *
 * @example
 * ```ts
 * import { RunTooLargeError } from "./errors.ts";
 * const e = new RunTooLargeError("r1", "the run's record is over the ceiling");
 * console.log(e.reason); // the run's record is over the ceiling
 * ```
 */
export class RunTooLargeError extends ReinsError {
  /** The run concerned. */
  readonly runId: string;
  /** Why, as stored as the run's stop reason. */
  readonly reason: string;
  /** Creates the error. */
  constructor(runId: string, reason: string) {
    super(`save("${runId}"): ${reason}; stored as failed`);
    this.runId = runId;
    this.reason = reason;
  }
}
