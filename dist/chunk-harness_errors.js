var __freeze = Object.freeze;
var __defProp = Object.defineProperty;
var __template = (cooked, raw) => __freeze(__defProp(cooked, "raw", { value: __freeze(raw || cooked.slice()) }));

// harness/errors.ts
var ReinsError = class extends Error {
  /** Creates a reins error with a message. */
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
};
var RunStateError = class extends ReinsError {
  /** The run concerned. */
  runId;
  /** The run's status when the operation was refused. */
  status;
  /** Creates the error; `action` is a verb phrase such as `resume` or `approve call "c2" of`. */
  constructor(runId, status, action, detail) {
    super(`Cannot ${action} run "${runId}": ${detail ?? `status is ${status}`}`);
    this.runId = runId;
    this.status = status;
  }
};
var RunConflictError = class extends ReinsError {
  /** The run concerned. */
  runId;
  /** Creates the error. */
  constructor(runId, detail = "another process advanced it first") {
    super(`Run "${runId}" was changed concurrently: ${detail}`);
    this.runId = runId;
  }
};
var RunNotFoundError = class extends ReinsError {
  /** The run concerned. */
  runId;
  /** Creates the error. */
  constructor(runId) {
    super(`Run "${runId}" not found`);
    this.runId = runId;
  }
};
var ModelError = class extends ReinsError {
  /** What went wrong, for callers that branch on it. */
  kind;
  /** HTTP status, when there was one. */
  status;
  /** Attempts whose reply was lost on the way (the provider may have billed them). */
  lost;
  /** Creates the error. */
  constructor(kind, message, status, lost = []) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.lost = lost;
  }
};
var PermanentToolError = class extends ReinsError {
};
var SuspendRun = class extends ReinsError {
  /** The interruption the run stops with. */
  interruption;
  /** Creates the signal-like error. */
  constructor(interruption, reason) {
    super(reason);
    this.interruption = interruption;
  }
};
var RunTooLargeError = class extends ReinsError {
  /** The run concerned. */
  runId;
  /** Why, as stored as the run's stop reason. */
  reason;
  /** Creates the error. */
  constructor(runId, reason) {
    super(`save("${runId}"): ${reason}; stored as failed`);
    this.runId = runId;
    this.reason = reason;
  }
};

// harness/message_of.ts
var messageOf = (function messageOf(e) {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
});

// harness/sleep.ts
var MAX_TIMER_MS = 2 ** 31 - 1;
var sleep = (function sleep(ms, signal) {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, {
      once: true
    });
  });
});

// harness/is_object.ts
var isObject = (function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
});

export {
  __template,
  ReinsError,
  RunStateError,
  RunConflictError,
  RunNotFoundError,
  ModelError,
  PermanentToolError,
  SuspendRun,
  RunTooLargeError,
  messageOf,
  isObject,
  MAX_TIMER_MS,
  sleep
};
