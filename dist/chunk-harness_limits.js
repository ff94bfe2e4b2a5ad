import {
  AN_OBJECT,
  NON_NEGATIVE_NUMBER
} from "./chunk-harness_schema_issue.js";

// harness/limits.ts
import { z } from "zod";
var DEFAULT_LIMITS = Object.freeze({
  maxTurns: 20,
  maxBudgetUsd: 1
});
var TURN_CAP = "expected an integer of at least 1";
var GIVEN_BUDGET = "expected more than 0 USD";
var schema;
var runLimitsSchema = (function runLimitsSchema() {
  return schema ??= buildSchema();
});
var buildSchema = (function buildSchema() {
  return z.strictObject({
    maxTurns: z.int({
      error: TURN_CAP
    }).min(1, {
      error: TURN_CAP
    }).describe("Model calls at most (at least 1)"),
    maxBudgetUsd: z.number({
      error: NON_NEGATIVE_NUMBER
    }).min(0, {
      error: NON_NEGATIVE_NUMBER
    }).describe("USD at most")
  }, {
    error: AN_OBJECT
  });
});
var checkNonNegative = (function checkNonNegative(name, value, integer) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || // Safe: a stored integer reads back exact (z.int() refuses beyond 2**53 - 1 too).
  integer && !Number.isSafeInteger(value)) {
    const unbounded = value === Infinity ? " (an unbounded value cannot be stored: give a large one)" : "";
    throw new RangeError(`${name} must be a finite non-negative ${integer ? "integer" : "number"}, got ${value}${unbounded}`);
  }
});
var FIELDS = Object.keys(DEFAULT_LIMITS);
var checkLimits = (function checkLimits(limits, base = DEFAULT_LIMITS) {
  if (typeof limits !== "object" || limits === null) {
    throw new TypeError(`limits must be an object, got ${limits === null ? "null" : typeof limits}`);
  }
  for (const key of Object.keys(limits)) {
    if (!FIELDS.includes(key)) {
      throw new TypeError(`limits has no field "${key}" (the limits: ${FIELDS.join(", ")})`);
    }
  }
  const merged = {
    maxTurns: limits.maxTurns === void 0 ? base.maxTurns : limits.maxTurns,
    maxBudgetUsd: limits.maxBudgetUsd === void 0 ? base.maxBudgetUsd : limits.maxBudgetUsd
  };
  if (merged.maxTurns === 0) {
    throw new RangeError("limits.maxTurns must be at least 1 (a run that may not call the model does nothing), got 0");
  }
  checkNonNegative("limits.maxTurns", merged.maxTurns, true);
  checkNonNegative("limits.maxBudgetUsd", merged.maxBudgetUsd, false);
  return merged;
});

// harness/iso_now.ts
var lastMs = NaN;
var lastIso = "";
var isoNow = (function isoNow() {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = isoTime(ms);
  }
  return lastIso;
});
var DAY_MS = 864e5;
var LAST_FOUR_DIGIT_MS = 253402300799999;
var isoTime = (function isoTime(ms) {
  if (!(ms >= 0 && ms <= LAST_FOUR_DIGIT_MS)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  const { year, month, day } = civilDate(days);
  let rest = Math.floor(ms - days * DAY_MS);
  const h = Math.floor(rest / 36e5);
  rest -= h * 36e5;
  const m = Math.floor(rest / 6e4);
  rest -= m * 6e4;
  const s = Math.floor(rest / 1e3);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(rest - s * 1e3, 3)}Z`;
});
var civilDate = (function civilDate(days) {
  const z2 = days + 719468;
  const era = Math.floor(z2 / 146097);
  const doe = z2 - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return {
    year: yoe + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: doy - Math.floor((153 * mp + 2) / 5) + 1
  };
});
var pad = (function pad(n, width) {
  return String(n).padStart(width, "0");
});

// harness/state.ts
var RUN_STATUSES = [
  "running",
  "completed",
  "failed",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted"
];
var RESUMABLE_STATUSES = [
  "running",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted"
];
var RUN_SCHEMA_VERSION = 1;
var newRun = (function newRun(task, options = {}) {
  if (typeof task !== "string" || task.trim() === "") {
    throw new TypeError("newRun(task): task must be a non-empty string");
  }
  const runId = options.runId ?? crypto.randomUUID();
  const now = isoNow();
  const messages = [];
  if (options.system) messages.push({
    role: "system",
    content: options.system
  });
  messages.push({
    role: "user",
    content: task
  });
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
    ...options.agent === void 0 ? {} : {
      agent: options.agent
    },
    limits: checkLimits(options.limits ?? {}),
    turns: 0,
    toolRuns: 0,
    usage: {
      prompt_tokens: 0,
      completion_tokens: 0
    },
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
    updatedAt: now
  };
});
var pending = (function pending(state) {
  const messages = state.messages;
  const answered = /* @__PURE__ */ new Set();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool") answered.add(m.tool_call_id);
    else if (m.role === "assistant") {
      return (m.tool_calls ?? []).filter((c) => !answered.has(c.id));
    } else return [];
  }
  return [];
});

export {
  DEFAULT_LIMITS,
  GIVEN_BUDGET,
  runLimitsSchema,
  checkNonNegative,
  checkLimits,
  isoNow,
  RUN_STATUSES,
  RESUMABLE_STATUSES,
  RUN_SCHEMA_VERSION,
  newRun,
  pending
};
