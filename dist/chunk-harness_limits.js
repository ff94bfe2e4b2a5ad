import {
  MAX_TIMER_MS,
  ModelError,
  PermanentToolError,
  RunNotFoundError,
  RunStateError,
  RunTooLargeError,
  SuspendRun,
  isObject,
  messageOf,
  sleep
} from "./chunk-harness_errors.js";

// harness/limits.ts
import { z } from "zod";

// harness/schema_issue.ts
var NON_NEGATIVE_NUMBER = "expected a non-negative number";
var AN_OBJECT = "expected an object";
function objectError(issue) {
  return issue.code === "invalid_type" ? AN_OBJECT : void 0;
}
function formatPath(path, start = "") {
  let out = start;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) {
      out += out ? `.${key}` : key;
    } else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
function issueLine(issue, start = "", input) {
  const path = formatPath(issue.path, start);
  const where = path ? `${path}: ` : "";
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return `${where}unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`;
  }
  const got = input === void 0 || issue.message.includes("received") ? "" : gotText(valueAt(input, issue.path));
  return `${where}${issue.message}${got}`;
}
function valueAt(input, path) {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return void 0;
    value = value[key];
  }
  return value;
}
function gotText(value) {
  if (typeof value === "string") {
    const quoted = JSON.stringify(value);
    return `, got ${quoted.length > 60 ? `${quoted.slice(0, 57)}..."` : quoted}`;
  }
  if (typeof value === "function") return ", got a function";
  return typeof value === "object" && value !== null ? "" : `, got ${String(value)}`;
}

// harness/limits.ts
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
    error: objectError
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
  const z8 = days + 719468;
  const era = Math.floor(z8 / 146097);
  const doe = z8 - era * 146097;
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

// harness/exit.ts
var abortReason = (function abortReason(signal) {
  const r = signal.reason;
  if (typeof r === "string") return r;
  if (r instanceof Error) return r.message || r.name;
  return String(r);
});
var exit = {
  /** The run is done (the model answered, or a condition was met). */
  completed(reason) {
    return {
      status: "completed",
      interruption: null,
      reason
    };
  },
  /** The run failed for good; `error` is stored as the run's error. */
  failed(reason, error) {
    return error === void 0 ? {
      status: "failed",
      interruption: null,
      reason
    } : {
      status: "failed",
      interruption: null,
      reason,
      error
    };
  },
  /** The final answer failed the output schema after `repairs` repair turns. */
  invalidOutput(raw, issues, repairs) {
    const n = issues.length;
    const reason = `invalid output: the answer still fails the output schema after ${repairs} repair${repairs === 1 ? "" : "s"}; ${n} issue${n === 1 ? "" : "s"}, the first at ${issues[0]?.path ?? "(root)"}: ${issues[0]?.message ?? "?"}`;
    return {
      status: "failed",
      interruption: null,
      reason,
      error: reason,
      failure: {
        kind: "invalid_output",
        raw,
        issues
      }
    };
  },
  /** A typed run's model refused to answer (see {@link Failure}); its words are the error. */
  refusal(raw) {
    const reason = raw ? "the model refused to answer (content_filter)" : "the reply was filtered (content_filter) and holds no words";
    return {
      status: "failed",
      interruption: null,
      reason,
      error: raw || reason,
      failure: {
        kind: "refusal",
        raw
      }
    };
  },
  /** The turn cap stopped the run (resumable with a higher cap). */
  maxTurns(reason) {
    return {
      status: "max_turns_exceeded",
      interruption: {
        type: "max_turns"
      },
      reason
    };
  },
  /** The budget stopped the run (resumable with a larger budget). */
  budget(reason) {
    return {
      status: "budget_exceeded",
      interruption: {
        type: "max_budget"
      },
      reason
    };
  },
  /** The run paused for a person's verdict or an outside event (resumable). */
  interrupted(interruption, reason) {
    return {
      status: "interrupted",
      interruption,
      reason
    };
  },
  /** The run was stopped by an aborted signal, with its reason. */
  cancelled(signal) {
    const reason = abortReason(signal);
    return {
      status: "interrupted",
      interruption: {
        type: "cancelled",
        reason
      },
      reason: `cancelled: ${reason}`
    };
  }
};

// harness/stop_conditions.ts
var isStepCount = (function isStepCount(n) {
  checkNonNegative("isStepCount(n)", n, true);
  return (s) => s.turns >= n ? exit.maxTurns(`turn cap reached: ${s.turns} of ${n} turns used`) : false;
});
var isBudgetSpent = (function isBudgetSpent(usd) {
  checkNonNegative("isBudgetSpent(usd)", usd, false);
  return (s) => s.costUsd >= usd ? exit.budget(`budget spent: $${s.costUsd.toFixed(6)} of $${usd.toFixed(6)}`) : false;
});
var hasToolCall = (function hasToolCall(name) {
  if (typeof name !== "string" || !name) {
    throw new TypeError("hasToolCall(name): name must be a non-empty string");
  }
  return (s) => s.messages.some((m) => m.role === "assistant" && m.tool_calls?.some((c) => c.function.name === name)) ? exit.completed(`stop condition: the model called ${name}`) : false;
});
var firstStop = (function firstStop(conditions, state) {
  for (let i = 0; i < conditions.length; i++) {
    const answer = conditions[i](state);
    if (answer instanceof Promise) {
      return answer.then((v) => v ? verdictOf(v) : firstStop(conditions.slice(i + 1), state));
    }
    if (answer) return verdictOf(answer);
  }
  return null;
});
var verdictOf = (function verdictOf(v) {
  if (v === true) return exit.completed("a stop condition was met");
  return {
    ...v,
    interruption: v.interruption ?? null
  };
});

// harness/transcript_scan.ts
var TranscriptScan = class {
  #scans = /* @__PURE__ */ new WeakMap();
  #spec;
  /** A scan folding transcripts as `spec` says. */
  constructor(spec) {
    this.#spec = spec;
  }
  /** The fold of `messages`, reading only what was added since the last look. */
  of(messages, context) {
    const spec = this.#spec;
    let s = this.#scans.get(messages);
    if (!s || messages.length < s.read || messages[s.read - 1] !== s.last || spec.stale?.(s.value, s.read, context)) {
      s = {
        read: 0,
        last: void 0,
        value: spec.start()
      };
      this.#scans.set(messages, s);
    }
    for (; s.read < messages.length; s.read++) {
      const m = messages[s.read];
      spec.step(s.value, m, s.read, context);
      s.last = m;
    }
    return s.value;
  }
};

// harness/clone_data.ts
var cloneData = (function cloneData(value) {
  const root = {};
  const todo = [
    {
      src: value,
      into: root,
      key: "",
      within: null
    }
  ];
  const open = /* @__PURE__ */ new Set();
  for (let w = todo.pop(); w; w = todo.pop()) {
    if (!("into" in w)) {
      open.delete(w.value);
      continue;
    }
    const { src } = w;
    if (typeof src !== "object" || src === null) {
      if (notData(src)) throw refused(w, `a ${typeof src}`);
      put(w.into, w.key, src);
      continue;
    }
    if (open.has(src)) throw refused(w, "a cycle");
    const array = Array.isArray(src);
    const proto = Object.getPrototypeOf(src);
    if (!array && proto !== Object.prototype && proto !== null) {
      throw refused(w, `a ${src.constructor?.name || "non-plain object"}`);
    }
    const at = {
      value: src,
      key: w.key,
      parent: w.within
    };
    const out = array ? [] : plainCopy(src);
    put(w.into, w.key, out);
    open.add(src);
    todo.push(at);
    if (array) {
      for (let i = src.length - 1; i >= 0; i--) {
        todo.push({
          src: src[i],
          into: out,
          key: i,
          within: at
        });
      }
    } else {
      const keys = Object.keys(out);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        const v = out[key];
        if (typeof v === "object" ? v !== null : notData(v)) {
          todo.push({
            src: v,
            into: out,
            key,
            within: at
          });
        }
      }
    }
  }
  return root[""];
});
var plainCopy = (function plainCopy(src) {
  if (Object.getOwnPropertySymbols(src).length === 0) return {
    ...src
  };
  const out = {};
  for (const key of Object.keys(src)) put(out, key, src[key]);
  return out;
});
var notData = (function notData(v) {
  return typeof v === "function" || typeof v === "symbol" || typeof v === "bigint";
});
var put = (function put(into, key, v) {
  if (key === "__proto__") {
    Object.defineProperty(into, key, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true
    });
  } else into[key] = v;
});
var refused = (function refused(w, what) {
  const keys = [
    w.key
  ];
  for (let a = w.within; a && a.parent; a = a.parent) keys.unshift(a.key);
  let path = "";
  for (const k of keys) path += typeof k === "number" ? `[${k}]` : path ? `.${k}` : k;
  return new TypeError(`Cannot copy ${path || "the value"}: ${what}, not data`);
});

// harness/follow_up.ts
var FOLLOW_UP_STATUSES = [
  "completed",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted"
];
var followUpRefusal = (function followUpRefusal(state) {
  if (state.parentId !== null) {
    return `it is a subagent of run "${state.parentId}"; send the message to its root`;
  }
  if (state.status === "running") return "it is running; wait until it stops";
  if (!FOLLOW_UP_STATUSES.includes(state.status)) return `status is ${state.status}`;
  const i = state.interruption;
  if (state.status === "interrupted" && i?.type === "approval") {
    return `call "${i.callId}"${i.runId && i.runId !== state.runId ? ` of run "${i.runId}"` : ""} awaits a verdict: decide the verdict first (approve or reject it)`;
  }
  const [open] = pending(state);
  if (open) return `call "${open.id}" of its last reply has no result yet: resume the run first`;
  return null;
});
var followUp = (function followUp(state, message, options = {}) {
  if (typeof message !== "string" || message.trim() === "") {
    throw new TypeError("followUp(state, message): message must be a non-empty string");
  }
  const why = followUpRefusal(state);
  if (why) throw new RunStateError(state.runId, state.status, "follow up", why);
  const next = cloneData(state);
  next.limits = checkLimits(options.limits ?? {}, next.limits);
  next.messages.push({
    role: "user",
    content: message
  });
  next.status = "running";
  next.interruption = null;
  next.stopReason = null;
  next.output = null;
  next.resultCache = {};
  next.updatedAt = isoNow();
  return next;
});
var turnsSinceLastMessage = (function turnsSinceLastMessage(state) {
  const repairs = state.outputRepairs ?? [];
  const scan = exchanges.of(state.messages, repairs);
  scan.repairs = repairs.length;
  return scan.earlier ? scan.since : state.turns;
});
var exchanges = new TranscriptScan({
  start: () => ({
    repairs: 0,
    last: -1,
    earlier: false,
    since: 0
  }),
  step(scan, m, index, repairs) {
    if (m.role === "assistant") scan.since++;
    else if (m.role === "user" && !repairs.includes(index)) {
      scan.earlier ||= scan.last >= 0;
      scan.last = index;
      scan.since = 0;
    }
  },
  // A repair (un)marked on a message already read: read it afresh.
  stale: (scan, read, repairs) => repairs.length < scan.repairs || repairs.slice(scan.repairs).some((i) => i < read)
});
var isTurnCapReached = (function isTurnCapReached(n) {
  checkNonNegative("isTurnCapReached(n)", n, true);
  return (s) => {
    const since = turnsSinceLastMessage(s);
    if (since < n) return false;
    const what = since === s.turns ? "turns used" : "turns since the last message used";
    return exit.maxTurns(`turn cap reached: ${since} of ${n} ${what}`);
  };
});
var announceFollowUp = (async function announceFollowUp(ctx) {
  const { state } = ctx;
  const index = state.messages.length - 1;
  const last = state.messages[index];
  if (last?.role !== "user" || state.modelCall || state.outputRepairs?.includes(index)) return;
  if (!state.messages.some((m) => m.role === "assistant")) return;
  await ctx.emit({
    type: "user_message",
    runId: state.runId,
    index,
    turns: state.turns,
    content: last.content
  });
});

// harness/schema_adapter.ts
import { z as z2 } from "zod";
var adaptSchema = (function adaptSchema(schema3, where) {
  if (!schema3 || typeof schema3 !== "object" && typeof schema3 !== "function") {
    throw new TypeError(`${where}: expected a zod 4 schema or a Standard JSON Schema`);
  }
  const known = adapted.get(schema3);
  if (known) return known;
  const fresh2 = adaptFresh(schema3, where);
  adapted.set(schema3, fresh2);
  adapted.set(fresh2.check, fresh2);
  return fresh2;
});
var adapted = /* @__PURE__ */ new WeakMap();
var adaptFresh = (function adaptFresh(schema3, where) {
  if ("_zod" in schema3) return {
    check: zodCheck(schema3),
    jsonSchema: zodJsonSchema(schema3)
  };
  const standard = schema3["~standard"];
  if (standard && typeof standard.jsonSchema?.input === "function") {
    return {
      check: standardCheck(standard),
      jsonSchema: standardJsonSchema(standard, where)
    };
  }
  if (standard?.vendor === "zod" || "_def" in schema3) {
    throw new TypeError(`${where}: a zod 3 schema cannot give reins a JSON Schema; use zod 4 (npm:zod@4, or "zod/v4" from zod 3.25) or any Standard JSON Schema`);
  }
  if (typeof schema3.safeParse === "function" && !standard) {
    throw new TypeError(`${where}: a schema without a JSON Schema; pass the tool's jsonSchema too`);
  }
  throw new TypeError(`${where}: expected a zod 4 schema or a Standard JSON Schema`);
});
var zodCheck = (function zodCheck(schema3) {
  const s = schema3;
  return {
    safeParse: (data) => z2.safeParse(s, data, {
      jitless: true
    })
  };
});
var zodJsonSchema = (function zodJsonSchema(schema3) {
  const { $schema: _drop, ...json } = z2.toJSONSchema(schema3);
  return json;
});
var standardJsonSchema = (function standardJsonSchema(standard, where) {
  let json;
  try {
    json = standard.jsonSchema.input({
      target: "draft-2020-12"
    });
  } catch (e) {
    const why = messageOf(e);
    throw new TypeError(`${where}: the ${standard.vendor} schema gives no JSON Schema: ${why}`);
  }
  const { $schema: _drop, ...rest } = json;
  return rest;
});
var standardCheck = (function standardCheck(standard) {
  return {
    safeParse(data) {
      const result = standard.validate(data);
      if (result instanceof Promise) {
        const issues = [
          {
            path: [],
            message: "asynchronous schemas are not supported"
          }
        ];
        return {
          success: false,
          error: {
            issues
          }
        };
      }
      if (result.issues) return {
        success: false,
        error: {
          issues: result.issues.map(issueOf)
        }
      };
      return {
        success: true,
        data: result.value
      };
    }
  };
});
var issueOf = (function issueOf(issue) {
  const path = Array.from(issue.path ?? [], (p) => typeof p === "object" ? p.key : p);
  return {
    path,
    message: issue.message
  };
});

// harness/plain_name.ts
var PLAIN_NAME = "/^[a-zA-Z0-9_-]{1,64}$/";
var isPlainName = (function isPlainName(name, colon = false) {
  if (name.length < 1 || name.length > 64) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = c >= 48 && c <= 57 || c >= 65 && c <= 90 || c >= 97 && c <= 122 || c === 95 || c === 45 || colon && c === 58;
    if (!ok) return false;
  }
  return true;
});

// harness/tool.ts
var defineTool = (function defineTool(spec) {
  if (!spec || typeof spec !== "object") {
    throw new TypeError("defineTool(spec): spec must be an object");
  }
  if (typeof spec.name !== "string" || !isPlainName(spec.name)) {
    throw new TypeError(`defineTool: name must match ${PLAIN_NAME}, got ${JSON.stringify(spec.name)}`);
  }
  if (typeof spec.description !== "string") {
    throw new TypeError(`defineTool(${spec.name}): description must be a string`);
  }
  if (typeof spec.run !== "function") {
    throw new TypeError(`defineTool(${spec.name}): run must be a function`);
  }
  const { check, jsonSchema } = adaptSchema(spec.parameters, `defineTool(${spec.name})`);
  return {
    name: spec.name,
    description: spec.description,
    parameters: check,
    jsonSchema,
    readOnly: spec.readOnly ?? false,
    idempotent: spec.idempotent ?? spec.readOnly ?? false,
    needsApproval: spec.needsApproval ?? false,
    run: spec.run
  };
});
var toolDefinitions = (function toolDefinitions(tools) {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: t.jsonSchema
    }
  }));
});
var describeIssues = (function describeIssues(issues) {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`).join("; ");
});

// harness/context_view.ts
var ELIDE_MIN_CHARS = 400;
function emptyContext() {
  return {
    summary: null,
    summaryTurns: 0,
    summarizedTo: 0,
    elidedTo: 0,
    compactions: 0,
    costUsd: 0,
    usage: {
      prompt_tokens: 0,
      completion_tokens: 0
    }
  };
}
function headLength(messages) {
  let i = 0;
  while (messages[i]?.role === "system") i++;
  return messages[i]?.role === "user" ? i + 1 : i;
}
var SUMMARY_OPENING = "[Summary of turns 1-";
function summaryMessage(context) {
  return {
    role: "user",
    content: `${SUMMARY_OPENING}${context.summaryTurns}, written to save context; the full transcript is kept in the run's record]
${context.summary ?? ""}`
  };
}
function summarizedTurnsOf(text) {
  if (!text.startsWith(SUMMARY_OPENING)) return 0;
  const n = parseInt(text.slice(SUMMARY_OPENING.length), 10);
  return Number.isInteger(n) && n > 0 ? n : 0;
}
function elidedStub(result, call) {
  const args = call ? ` ${call.function.arguments}` : "";
  return {
    ...result,
    content: `[result elided to save context: ${result.name}${args} returned ${result.content.length} characters. Call the tool again if you need them.]`
  };
}
var stubs = /* @__PURE__ */ new WeakMap();
function callOf(messages, i, id) {
  for (let j = i - 1; j >= 0; j--) {
    const m = messages[j];
    if (m?.role === "assistant" && m.tool_calls) {
      const call = m.tool_calls.find((c) => c.id === id);
      if (call) return call;
    }
  }
  return void 0;
}
function shown(messages, m, i, context) {
  if (m.role !== "tool" || i >= context.elidedTo || m.content.length < ELIDE_MIN_CHARS) return m;
  let stub = stubs.get(m);
  if (!stub) stubs.set(m, stub = elidedStub(m, callOf(messages, i, m.tool_call_id)));
  return stub;
}
function shownRange(messages, context, from, to) {
  return messages.slice(from, to).map((m, k) => shown(messages, m, from + k, context));
}
function elidable(messages, from, to) {
  let n = 0;
  for (let i = from; i < to; i++) {
    const m = messages[i];
    if (m?.role === "tool" && m.content.length >= ELIDE_MIN_CHARS) n++;
  }
  return n;
}
function contextView(messages, context) {
  if (!context) return messages;
  const head = headLength(messages);
  const out = messages.slice(0, head);
  if (context.summary !== null) out.push(summaryMessage(context));
  const from = Math.max(head, context.summarizedTo);
  return out.concat(shownRange(messages, context, from, messages.length));
}
function keptFrom(messages, from, keep) {
  let seen = 0;
  for (let i = messages.length - 1; i >= from; i--) {
    if (messages[i]?.role !== "assistant" || ++seen < keep) continue;
    let cut = i;
    while (cut - 1 >= from && messages[cut - 1]?.role === "user") cut--;
    return cut > from ? cut : null;
  }
  return null;
}
function turnsBetween(messages, from, to) {
  let n = 0;
  for (let i = from; i < to; i++) if (messages[i]?.role === "assistant") n++;
  return n;
}
function contextForPrefix(context, count) {
  if (!context) return void 0;
  if (context.summarizedTo <= count) {
    return {
      ...context,
      elidedTo: Math.min(context.elidedTo, count)
    };
  }
  return {
    ...context,
    summary: null,
    summaryTurns: 0,
    summarizedTo: 0,
    elidedTo: Math.min(context.elidedTo, count)
  };
}
function forkContext(context, count) {
  const cut = contextForPrefix(context, count);
  if (!cut || cut.summary === null && cut.elidedTo === 0) return void 0;
  return {
    ...emptyContext(),
    summary: cut.summary,
    summaryTurns: cut.summaryTurns,
    summarizedTo: cut.summarizedTo,
    elidedTo: cut.elidedTo
  };
}

// harness/cost.ts
import { z as z3 } from "zod";
var DEFAULT_MAX_OUTPUT_TOKENS = 16384;
var DEFAULT_PRICES = Object.freeze({
  inputPerMillion: 2,
  outputPerMillion: 12
});
var POS_INT = "expected a positive integer";
var schemas;
var priceSchemas = (function priceSchemas() {
  if (schemas) return schemas;
  const nonNegNum = z3.number({
    error: NON_NEGATIVE_NUMBER
  }).min(0, {
    error: NON_NEGATIVE_NUMBER
  });
  const posInt = z3.int({
    error: POS_INT
  }).min(1, {
    error: POS_INT
  });
  const prices = z3.strictObject({
    inputPerMillion: nonNegNum,
    outputPerMillion: nonNegNum,
    maxOutputTokens: posInt.optional(),
    contextTokens: posInt.optional(),
    cachedInputPerMillion: nonNegNum.optional(),
    cacheWritePerMillion: nonNegNum.optional()
  }, {
    error: objectError
  });
  const table = z3.strictObject({
    default: prices,
    models: z3.record(z3.string(), prices, {
      error: objectError
    }).optional()
  }, {
    error: objectError
  });
  return schemas = {
    prices,
    table
  };
});
var pricesSchema = (function pricesSchema() {
  return priceSchemas().prices;
});
var priceTableSchema = (function priceTableSchema() {
  return priceSchemas().table;
});
var pricesSchemaOf = (function pricesSchemaOf(value) {
  const isTable = typeof value === "object" && value !== null && ("default" in value || "models" in value);
  return isTable ? priceTableSchema() : pricesSchema();
});
var computeCost = (function computeCost(usage, prices = DEFAULT_PRICES) {
  const read = Math.min(Math.max(0, usage.cached_prompt_tokens ?? 0), usage.prompt_tokens);
  const write = Math.min(Math.max(0, usage.cache_write_tokens ?? 0), usage.prompt_tokens - read);
  const fresh2 = usage.prompt_tokens - read - write;
  return roundUsd((fresh2 * prices.inputPerMillion + read * (prices.cachedInputPerMillion ?? prices.inputPerMillion) + write * (prices.cacheWritePerMillion ?? prices.inputPerMillion) + usage.completion_tokens * prices.outputPerMillion) / 1e6);
});
var addUsd = (function addUsd(a, b) {
  return roundUsd(a + b);
});
var checkPrices = (function checkPrices(table, name = "prices") {
  if (table === void 0) return;
  const issue = pricesSchemaOf(table).safeParse(table).error?.issues[0];
  if (issue) throw new RangeError(issueLine(issue, name, table));
});
var pricesFor = (function pricesFor(table, model) {
  if (!table) return DEFAULT_PRICES;
  if ("inputPerMillion" in table) return table;
  return table.models?.[model] ?? table.default;
});
var roundUsd = (function roundUsd(usd) {
  return Math.round(usd * 1e9) / 1e9;
});

// harness/prompt_estimate.ts
var RATIO_MARGIN = 1.05;
var promptEstimate = (function promptEstimate(state, tokens) {
  const ratio = state.promptRatio ? Math.max(1, state.promptRatio) * RATIO_MARGIN : 1;
  return Math.ceil(tokens * ratio);
});

// harness/tokens.ts
var TOKENS_PER_MESSAGE = 3;
var TOKENS_PER_TOOL_CALL = 3;
var TOKENS_PER_TOOL = 3;
var REPLY_PRIMING_TOKENS = 3;
var codec;
var loading;
var PLAIN = {
  allowedSpecial: /* @__PURE__ */ new Set(),
  disallowedSpecial: /* @__PURE__ */ new Set()
};
var loadTokenizer = (function loadTokenizer() {
  return loading ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => {
    codec = {
      encode: (text) => m.encode(text, PLAIN),
      decode: (tokens) => m.decode(tokens)
    };
  }, (e) => {
    loading = void 0;
    throw e;
  });
});
var tokenizerLoaded = (function tokenizerLoaded() {
  return codec !== void 0;
});
var enc = (function enc() {
  if (codec) return codec;
  throw new Error("the o200k_base tokenizer is not loaded: await loadTokenizer() before counting");
});
var longRun;
var SLICE = 8;
var encodeSafe = (function encodeSafe(text) {
  if (text.length < 64) return enc().encode(text);
  const out = [];
  const add = (part) => {
    for (const t of enc().encode(part)) out.push(t);
  };
  let last = 0;
  longRun ??= /[\p{L}\p{M}]{64,}|[^\s\p{L}\p{M}\p{N}]{64,}|\s{64,}/gu;
  for (const m of text.matchAll(longRun)) {
    if (m.index > last) add(text.slice(last, m.index));
    for (let i = 0, end = 0; i < m[0].length; i = end) {
      end = i + SLICE;
      if (end < m[0].length && /[\ud800-\udbff]/.test(m[0][end - 1])) end -= 1;
      add(m[0].slice(i, end));
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) add(text.slice(last));
  return out;
});
var MIN_CACHED_LENGTH = 32;
var MAX_CACHED_CHARS = 16e6;
var stringCache = /* @__PURE__ */ new Map();
var cachedChars = 0;
var countTokens = (function countTokens(text) {
  if (text.length === 0) return 0;
  if (text.length < MIN_CACHED_LENGTH) return enc().encode(text).length;
  const hit = stringCache.get(text);
  if (hit !== void 0) return hit;
  const n = encodeSafe(text).length;
  if (text.length <= MAX_CACHED_CHARS / 4) {
    for (const [key] of stringCache) {
      if (cachedChars + text.length <= MAX_CACHED_CHARS) break;
      stringCache.delete(key);
      cachedChars -= key.length;
    }
    stringCache.set(text, n);
    cachedChars += text.length;
  }
  return n;
});
var tokenCount = (function tokenCount(n) {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : void 0;
});
var truncateToTokens = (function truncateToTokens(text, maxTokens) {
  if (maxTokens <= 0) return "";
  const tokens = encodeSafe(text);
  if (tokens.length <= maxTokens) return text;
  for (let n = maxTokens; n > 0; n--) {
    const prefix = enc().decode(tokens.slice(0, n));
    if (text.startsWith(prefix) && countTokens(prefix) <= maxTokens) return prefix;
  }
  return "";
});
var toolCallsTokens = (function toolCallsTokens(calls) {
  let n = 0;
  for (const call of calls ?? []) {
    n += TOKENS_PER_TOOL_CALL + countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return n;
});
var messageCache = /* @__PURE__ */ new WeakMap();
var toolCache = /* @__PURE__ */ new WeakMap();
var countMessageTokens = (function countMessageTokens(message) {
  const toolCalls = message.role === "assistant" ? message.tool_calls : void 0;
  const cached = messageCache.get(message);
  if (cached && cached.content === message.content && cached.toolCalls === toolCalls && cached.toolCallCount === (toolCalls?.length ?? 0)) {
    return cached.tokens;
  }
  const tokens = TOKENS_PER_MESSAGE + countTokens(message.role) + countTokens(message.content ?? "") + toolCallsTokens(toolCalls);
  messageCache.set(message, {
    content: message.content,
    toolCalls,
    toolCallCount: toolCalls?.length ?? 0,
    tokens
  });
  return tokens;
});
var countToolTokens = (function countToolTokens(tool) {
  const cached = toolCache.get(tool);
  if (cached !== void 0) return cached;
  const fn2 = tool.function;
  const tokens = TOKENS_PER_TOOL + countTokens(fn2.name) + countTokens(fn2.description ?? "") + countTokens(JSON.stringify(fn2.parameters ?? {}));
  toolCache.set(tool, tokens);
  return tokens;
});
var countPromptTokens = (function countPromptTokens(messages, tools) {
  let n = REPLY_PRIMING_TOKENS;
  for (const message of messages) n += countMessageTokens(message);
  for (const tool of tools ?? []) n += countToolTokens(tool);
  return n;
});
var countCompletionTokens = (function countCompletionTokens(message) {
  return countTokens(message.content ?? "") + toolCallsTokens(message.tool_calls);
});

// harness/text.ts
var cutText = (function cutText(text, max) {
  if (text.length <= max) return text;
  let n = Math.max(0, Math.floor(max));
  const code = text.charCodeAt(n - 1);
  if (n > 0 && code >= 55296 && code <= 56319) n -= 1;
  return text.slice(0, n);
});

// harness/output.ts
var MAX_OUTPUT_ISSUES = 20;
var MAX_ISSUE_CHARS = 300;
function outputFormat(schema3) {
  return adaptOutput(schema3).format;
}
function adaptOutput(schema3) {
  const where = "run(state, options): options.output";
  let adapted2;
  try {
    adapted2 = adaptSchema(schema3, where);
  } catch (e) {
    if (e instanceof TypeError) throw e;
    const why = messageOf(e);
    throw new TypeError(`${where} cannot be expressed as JSON Schema: ${why}`);
  }
  const json = adapted2.jsonSchema;
  const wrapped = json["type"] !== "object";
  const asked = wrapped ? {
    type: "object",
    properties: {
      value: json
    },
    required: [
      "value"
    ],
    additionalProperties: false
  } : json;
  const format = {
    name: "output",
    schema: asked,
    strict: isStrict(asked),
    wrapped,
    valueSchema: json
  };
  return {
    check: adapted2.check,
    format
  };
}
function isStrict(s) {
  if (Array.isArray(s)) return s.every(isStrict);
  if (typeof s !== "object" || s === null) return true;
  const o = s;
  if (o["type"] === "object" || o["properties"]) {
    const keys = Object.keys(o["properties"] ?? {});
    const required = Array.isArray(o["required"]) ? o["required"] : [];
    if (o["additionalProperties"] !== false || keys.some((k) => !required.includes(k))) {
      return false;
    }
  }
  return Object.values(o).every(isStrict);
}
function checkAnswer(text, schema3, format) {
  let data;
  try {
    data = JSON.parse(unfenced(text));
  } catch (e) {
    const what = text.trim() === "" ? "the answer is empty" : e.message;
    return {
      ok: false,
      issues: [
        {
          path: "(root)",
          message: `not JSON: ${what}`
        }
      ]
    };
  }
  return checkValue(data, schema3, format);
}
function checkValue(data, schema3, format) {
  const tries = format.wrapped && isValueWrapper(data) ? [
    data.value,
    data
  ] : [
    data
  ];
  let first = null;
  for (const candidate of tries) {
    const parsed = schema3.safeParse(candidate);
    if (parsed.success) return {
      ok: true,
      value: parsed.data
    };
    first ??= {
      ok: false,
      issues: toIssues(parsed.error.issues)
    };
  }
  return first;
}
function isValueWrapper(data) {
  return isObject(data) && Object.keys(data).length === 1 && "value" in data;
}
function unfenced(text) {
  const m = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return m?.[1] ?? text;
}
function toIssues(issues) {
  const out = issues.slice(0, MAX_OUTPUT_ISSUES).map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: cutText(i.message, MAX_ISSUE_CHARS)
  }));
  const more = issues.length - out.length;
  const last = out.at(-1);
  if (more > 0 && last) last.message += ` (and ${more} more issues)`;
  return out;
}
function repairText(issues) {
  const lines2 = issues.map((i) => `- at ${i.path}: ${i.message}`);
  return `${REPAIR_PREFIX} ${issues.length === 1 ? "1 issue" : `${issues.length} issues`}:
${lines2.join("\n")}
Answer again with only the corrected JSON value, no other text.`;
}
var REPAIR_PREFIX = "Your answer does not match the required JSON Schema;";

// harness/output_turn.ts
import { z as z4 } from "zod";
var FINAL_ANSWER_TOOL = "final_answer";
var ANSWER_ACCEPTED = "Accepted.";
var DEFAULT_OUTPUT_REPAIRS = 2;
var planOutput = (function planOutput(state, options) {
  const maxRepairs = options.maxOutputRepairs ?? DEFAULT_OUTPUT_REPAIRS;
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) {
    throw new RangeError(`maxOutputRepairs must be a non-negative integer, got ${maxRepairs}`);
  }
  const schema3 = options.output ?? storedSchema(state);
  if (schema3 === null) return null;
  const { check, format } = adaptOutput(schema3);
  const mode = options.model.structuredOutput === "json_schema" ? "json_schema" : "tool";
  if (mode === "tool" && options.tools?.some((t) => t.name === FINAL_ANSWER_TOOL)) {
    throw new TypeError(`run(state, options): a tool is named "${FINAL_ANSWER_TOOL}", the name the output schema's answer tool takes for this model`);
  }
  state.outputSchema = format.valueSchema;
  return {
    check,
    format,
    mode,
    maxRepairs
  };
});
var storedSchema = (function storedSchema(state) {
  if (state.outputSchema === void 0) return null;
  try {
    return z4.fromJSONSchema(state.outputSchema);
  } catch (e) {
    throw new RunStateError(state.runId, state.status, "resume", `its stored output schema cannot be rebuilt (${e.message}); pass \`output\``);
  }
});
var answerTools = (function answerTools(plan) {
  if (plan?.mode !== "tool") return [];
  return [
    {
      type: "function",
      function: {
        name: FINAL_ANSWER_TOOL,
        description: "Give your final answer. Call it once, when you are done; its arguments are the answer and must match the schema.",
        parameters: plan.format.schema
      }
    }
  ];
});
var toolCallsToRun = (function toolCallsToRun(state, plan) {
  const calls = pending(state);
  return plan?.mode === "tool" ? calls.filter((c) => !isAnswerCall(c)) : calls;
});
var isAnswerCall = (function isAnswerCall(call) {
  return call.function.name === FINAL_ANSWER_TOOL;
});
var answerOf = (function answerOf(state, calls) {
  const last = state.messages.at(-1);
  if (last?.role === "assistant" && !last.tool_calls?.length) {
    return {
      raw: last.content ?? "",
      calls: []
    };
  }
  if (!calls) return null;
  const answers = pending(state).filter(isAnswerCall);
  return answers.length ? {
    raw: answers.at(-1).function.arguments,
    calls: answers
  } : null;
});
var unjudgedAnswer = (function unjudgedAnswer(state) {
  if (state.status === "completed" || state.status === "failed") return null;
  const call = answerOf(state, true)?.calls[0];
  if (call) return `its pending ${FINAL_ANSWER_TOOL} call ${call.id}`;
  return answerOf(state, false) ? "its final reply" : null;
});
var judgeAnswer = (function judgeAnswer(ctx, plan) {
  const answer = answerOf(ctx.state, plan?.mode === "tool");
  return answer ? judgeFound(ctx, plan, answer) : null;
});
var judgeFound = (async function judgeFound(ctx, plan, answer) {
  const { state } = ctx;
  if (!plan) {
    state.output = answer.raw;
    return exit.completed("the model answered");
  }
  const check = judge(answer, plan);
  if (check.ok) {
    answerCalls(state, answer, ANSWER_ACCEPTED);
    state.output = check.value;
    return exit.completed("the model answered; the answer passes the output schema");
  }
  if (ctx.lastFinish === "content_filter" && !answer.calls.length) return exit.refusal(answer.raw);
  const used = repairsUsed(state);
  const left = used < plan.maxRepairs;
  await ctx.emit({
    type: "output_invalid",
    runId: state.runId,
    turn: state.turns,
    issues: check.issues,
    repair: left ? used + 1 : null
  });
  if (!left) return exit.invalidOutput(answer.raw, check.issues, used);
  const text = repairText(check.issues);
  const refused3 = await unaffordableRepair(ctx, answer.raw, text);
  if (refused3) return refused3;
  addRepair(state, answer, text);
  return "repair";
});
var judge = (function judge(answer, plan) {
  if (!answer.calls.length) return checkAnswer(answer.raw, plan.check, plan.format);
  let args;
  try {
    args = JSON.parse(answer.raw);
  } catch (e) {
    const message = `the ${FINAL_ANSWER_TOOL} arguments are not JSON: ${e.message}`;
    return {
      ok: false,
      issues: [
        {
          path: "(root)",
          message
        }
      ]
    };
  }
  return checkValue(args, plan.check, plan.format);
});
var answerCalls = (function answerCalls(state, answer, text) {
  const last = answer.calls.length - 1;
  answer.calls.forEach((call, i) => {
    state.messages.push({
      role: "tool",
      tool_call_id: call.id,
      name: call.function.name,
      // Only the last call of a reply is the answer: the earlier ones were not judged.
      content: i === last ? text : SUPERSEDED
    });
  });
});
var SUPERSEDED = "Not judged: a later final_answer call in this reply is the answer.";
var addRepair = (function addRepair(state, answer, text) {
  if (answer.calls.length) answerCalls(state, answer, text);
  else state.messages.push({
    role: "user",
    content: text
  });
  (state.outputRepairs ??= []).push(state.messages.length - 1);
});
var repairsUsed = (function repairsUsed(state) {
  const repairs = new Set(state.outputRepairs ?? []);
  let used = 0;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const role = state.messages[i].role;
    if (repairs.has(i)) used++;
    else if (role === "user" || role === "system") break;
  }
  return used;
});
var unaffordableRepair = (async function unaffordableRepair(ctx, raw, text) {
  if (ctx.options.budgetMode !== "hard") return null;
  await loadTokenizer();
  const { state, options } = ctx;
  const prices = pricesFor(options.prices ?? options.model.prices, options.model.name);
  const prompt = (ctx.lastPromptTokens ?? countPromptTokens(ctx.window.messages(state), [])) + countTokens(raw) + countTokens(text) + 16;
  const usd = computeCost({
    prompt_tokens: prompt,
    completion_tokens: countTokens(raw)
  }, prices);
  const left = ctx.remainingUsd();
  if (usd <= left) return null;
  return exit.budget(`budget spent: a repair of the output would cost about $${usd.toFixed(6)} and $${Math.max(0, left).toFixed(6)} is left (hard budget, not started)`);
});
var verdictDuringRepair = (function verdictDuringRepair(state, verdict) {
  const at = state.messages.length - 1;
  if (verdict.status !== "completed" || !state.outputRepairs?.includes(at)) return verdict;
  const raw = lastRaw(state, at);
  return exit.invalidOutput(raw, repairIssues(state.messages[at]?.content ?? ""), repairsUsed(state));
});
var lastRaw = (function lastRaw(state, repairAt) {
  const m = state.messages.findLast((x, i) => i < repairAt && x.role === "assistant");
  if (m?.role !== "assistant") return "";
  return m.tool_calls?.filter(isAnswerCall).at(-1)?.function.arguments ?? m.content ?? "";
});
var repairIssues = (function repairIssues(text) {
  return [
    ...text.matchAll(/^- at (\S+): (.*)$/gm)
  ].map((m) => ({
    path: m[1] ?? "",
    message: m[2] ?? ""
  }));
});

// harness/fork.ts
function forkPoint(state, atTurn) {
  const replies = state.messages.filter((m) => m.role === "assistant").length;
  if (!Number.isInteger(atTurn) || atTurn < 0 || atTurn > replies) {
    throw new RangeError(`atTurn must be an integer from 0 to ${replies} (the turns of run "${state.runId}"), got ${atTurn}`);
  }
  let seen = 0;
  for (const [i, m] of state.messages.entries()) {
    if (m.role === "assistant" && seen++ === atTurn) return i;
  }
  return state.messages.length;
}
function forkState(source, options) {
  if (source.parentId !== null) {
    throw new RunStateError(source.runId, source.status, "fork", `it is a subagent of run "${source.parentId}"; fork its root`);
  }
  const { atTurn } = options;
  const messages = cloneData(source.messages.slice(0, forkPoint(source, atTurn)));
  const [open] = pending({
    messages
  });
  if (open || messages.at(-1)?.role === "assistant" || endsWithAcceptedAnswer(messages)) {
    throw new RangeError(open ? `cannot fork run "${source.runId}" at turn ${atTurn}: call "${open.id}" of that turn has no result` : `cannot fork run "${source.runId}" at turn ${atTurn}: it is the run's final answer`);
  }
  const fork = newRun("(forked)", {
    runId: options.runId,
    model: source.model ?? void 0,
    agent: source.agent,
    limits: checkLimits(options.limits ?? {}, source.limits)
  });
  fork.messages = messages;
  fork.turns = atTurn;
  if (source.promptRatio) fork.promptRatio = source.promptRatio;
  const context = forkContext(source.context, messages.length);
  if (context) fork.context = context;
  fork.forkedFrom = {
    runId: source.runId,
    turn: atTurn
  };
  if (source.outputSchema !== void 0) fork.outputSchema = cloneData(source.outputSchema);
  const repairs = source.outputRepairs?.filter((i) => i < messages.length);
  if (repairs?.length) fork.outputRepairs = repairs;
  return fork;
}
function forkableTurns(messages) {
  const out = /* @__PURE__ */ new Set();
  let turn = 0;
  let open = /* @__PURE__ */ new Set();
  const check = (end) => {
    if (end > 0 && messages[end - 1]?.role !== "assistant" && open.size === 0 && !endsWithAcceptedAnswer(messages, end)) out.add(turn);
  };
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant") {
      check(i);
      turn++;
      open = new Set((m.tool_calls ?? []).map((c) => c.id));
    } else if (m.role === "tool") open.delete(m.tool_call_id);
  }
  check(messages.length);
  return out;
}
function endsWithAcceptedAnswer(messages, end = messages.length) {
  for (let i = end - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "tool") return false;
    if (m.name === FINAL_ANSWER_TOOL && m.content === ANSWER_ACCEPTED) return true;
  }
  return false;
}
async function quoteNextCall(state, options) {
  await loadTokenizer();
  const prices = pricesFor(options.prices ?? options.model.prices, options.model.name);
  const plan = planOutput({
    ...state
  }, options);
  const definitions = [
    ...toolDefinitions(options.tools ?? []),
    ...answerTools(plan)
  ];
  const promptTokens = countPromptTokens(contextView(state.messages, state.context), definitions);
  const replyTokens = prices.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const planned = promptEstimate(state, promptTokens);
  const promptUsd = computeCost({
    prompt_tokens: planned,
    completion_tokens: 0
  }, prices);
  const replyUsd = computeCost({
    prompt_tokens: 0,
    completion_tokens: replyTokens
  }, prices);
  return {
    turn: state.turns + 1,
    promptTokens,
    promptUsd,
    replyTokens,
    replyUsd,
    totalUsd: computeCost({
      prompt_tokens: planned,
      completion_tokens: replyTokens
    }, prices),
    model: options.model.name
  };
}

// harness/summary_prompt.ts
var SUMMARY_PROMPT = "You compact the context of an agent run. Summarize the conversation below for the agent that will continue the task without seeing it again. Keep, stated exactly: every fact found in tool results that may matter later (names, numbers, paths, errors), the user's instructions and constraints, what has been done and what is left to do. Say how many times a repeated call was made instead of repeating it. If an earlier summary is given, fold it in. Write plain text, as short as the facts allow. Do not call tools.";
var MAX_LINE_CHARS = 2e4;
function oneLine(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS)}\u2026` : flat;
}
function lines(m) {
  switch (m.role) {
    case "system":
    case "user":
      return [
        `[${m.role}] ${oneLine(m.content)}`
      ];
    case "assistant": {
      const out = m.content ? [
        `[assistant] ${oneLine(m.content)}`
      ] : [];
      for (const c of m.tool_calls ?? []) {
        out.push(`[call ${c.id}] ${c.function.name} ${oneLine(c.function.arguments)}`);
      }
      return out;
    }
    case "tool":
      return [
        `[result ${m.tool_call_id}] ${oneLine(m.content)}`
      ];
  }
}
function summaryRequest(earlier, messages) {
  const parts = [];
  if (earlier !== null) parts.push("[earlier summary]", earlier.trim());
  parts.push("[conversation]", ...messages.flatMap(lines));
  return [
    {
      role: "system",
      content: SUMMARY_PROMPT
    },
    {
      role: "user",
      content: parts.join("\n")
    }
  ];
}

// harness/driven_states.ts
var driving = /* @__PURE__ */ new WeakSet();
var markDrivenByRun = (function markDrivenByRun(state, driven) {
  if (driven) driving.add(state);
  else driving.delete(state);
});
var isDrivenByRun = (function isDrivenByRun(state) {
  return driving.has(state);
});

// harness/race_signal.ts
var raceSignal = (function raceSignal(p, signal, onLate) {
  return new Promise((resolve, reject2) => {
    let done = false;
    const onAbort = () => {
      done = true;
      signal.removeEventListener("abort", onAbort);
      reject2(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort);
    p.then((v) => {
      if (done) return onLate?.(v);
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    }, (e) => {
      if (done) return;
      signal.removeEventListener("abort", onAbort);
      reject2(e);
    });
  });
});

// harness/execute_tool.ts
var prepareCall = (function prepareCall(call, tools) {
  const name = call.function?.name;
  const tool = tools.get(name);
  if (!tool) {
    const known = [
      ...tools.keys()
    ].join(", ") || "none";
    return {
      type: "invalid",
      call,
      error: `Unknown tool "${name}". Available tools: ${known}.`
    };
  }
  const raw = call.function.arguments;
  let parsed;
  try {
    parsed = raw === void 0 || raw === "" ? {} : JSON.parse(raw);
  } catch (e) {
    return {
      type: "invalid",
      call,
      error: `Invalid arguments for ${name}: not valid JSON (${e.message}). Send a JSON object matching the tool's schema.`
    };
  }
  const checked = tool.parameters.safeParse(parsed);
  if (!checked.success) {
    return {
      type: "invalid",
      call,
      error: `Invalid arguments for ${name}: ${describeIssues(checked.error.issues)}.`
    };
  }
  return {
    type: "ready",
    call,
    tool,
    args: checked.data
  };
});
var displayArgs = (function displayArgs(call) {
  try {
    return JSON.parse(call.function.arguments);
  } catch {
    return call.function.arguments;
  }
});
var isPermanent = (function isPermanent(e) {
  return e instanceof PermanentToolError || typeof e === "object" && e !== null && e.permanent === true;
});
var invokeTool = (async function invokeTool(tool, args, ctx) {
  const signal = ctx.signal;
  signal.throwIfAborted();
  try {
    const value = tool.run(args, ctx);
    return resultOf(isPromiseLike(value) ? await raceSignal(value, signal) : value);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    if (e instanceof SuspendRun) {
      return {
        type: "tool-suspended",
        interruption: e.interruption,
        reason: e.message
      };
    }
    return {
      type: "tool-error",
      error: messageOf(e),
      permanent: isPermanent(e),
      cause: e
    };
  }
});
var isPromiseLike = (function isPromiseLike(value) {
  return typeof value?.then === "function";
});
var resultOf = (function resultOf(value) {
  const output = typeof value === "string" ? value : value === void 0 ? "" : JSON.stringify(value);
  return {
    type: "tool-result",
    output
  };
});

// harness/dedupe.ts
var canonicalJson = (function canonicalJson(value) {
  return JSON.stringify(value, (_k, v) => v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) : v);
});
var fnv1a = (function fnv1a(text) {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = h * 0x100000001b3n & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
});
var callSignature = (function callSignature(toolName, args) {
  return `${toolName}:${fnv1a(canonicalJson(args))}`;
});
var cachedResult = (function cachedResult(ctx, r) {
  const { state, options } = ctx;
  if (!options.dedupe || !(r.tool.readOnly || options.dedupeAll)) return void 0;
  const cachedId = state.resultCache[r.signature];
  return cachedId === void 0 ? void 0 : resultOf2(state, cachedId, r.args);
});
var resultOf2 = (function resultOf2(state, callId, args) {
  let content;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (m.role === "tool" && m.tool_call_id === callId) content = m.content;
    if (m.role === "assistant" && content !== void 0) {
      const call = m.tool_calls?.find((c) => c.id === callId);
      if (!call) continue;
      try {
        return canonicalJson(JSON.parse(call.function.arguments)) === canonicalJson(args) ? content : void 0;
      } catch {
        return void 0;
      }
    }
  }
  return void 0;
});

// harness/replay.ts
function recordedReads(source, atTurn, tools) {
  const out = /* @__PURE__ */ new Map();
  const messages = source.messages.slice(forkPoint(source, atTurn));
  const results = /* @__PURE__ */ new Map();
  for (const m of messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      if (tools.get(call.function.name)?.readOnly !== true) return out;
      const content = results.get(call.id);
      const signature = signatureOf(call.function.name, call.function.arguments);
      if (content === void 0 || signature === null || /^Error\b/.test(content)) continue;
      if (!out.has(signature)) {
        out.set(signature, {
          runId: source.runId,
          callId: call.id,
          content
        });
      }
    }
  }
  return out;
}
function signatureOf(name, args) {
  try {
    return callSignature(name, JSON.parse(args));
  } catch {
    return null;
  }
}
function forkWrote(messages, atTurn, tools) {
  let replies = 0;
  for (const m of messages) {
    if (m.role !== "assistant" || ++replies <= atTurn) continue;
    if (m.tool_calls?.some((c) => tools.get(c.function.name)?.readOnly !== true)) return true;
  }
  return false;
}
var indexes = /* @__PURE__ */ new WeakMap();
async function replayedResult(ctx, r, tools) {
  const origin = ctx.state.forkedFrom;
  const store = ctx.options.store;
  if (!origin || !store || !r.tool.readOnly) return void 0;
  if (forkWrote(ctx.state.messages, origin.turn, tools)) return void 0;
  let index = indexes.get(ctx);
  if (!index) {
    const read = store.read?.bind(store) ?? store.load.bind(store);
    index = read(origin.runId).then((s) => recordedReads(s, origin.turn, tools)).catch(() => /* @__PURE__ */ new Map());
    indexes.set(ctx, index);
  }
  return (await index).get(r.signature);
}

// harness/tool_step.ts
var runToolCalls = (async function runToolCalls(ctx, calls, tools, session) {
  const reads = readBatch(ctx, session);
  for (const call of calls) {
    if (ctx.signal.aborted) return exit.cancelled(ctx.signal);
    const stopped2 = await runCall(ctx, session, reads, call, tools);
    if (stopped2) return stopped2;
  }
  return await reads.flush();
});
var runCall = (async function runCall(ctx, session, reads, call, tools) {
  const prepared = prepareCall(call, tools);
  if (prepared.type === "invalid") {
    return await reads.flush() ?? await recordInvalid(ctx, session, call, prepared.error);
  }
  const { tool, args } = prepared;
  const r = runnable(call, tool, args);
  const needs = typeof tool.needsApproval === "function" ? tool.needsApproval(args) : tool.needsApproval;
  const why = verdictNeeded(ctx, r, needs);
  if (why) return await reads.flush() ?? await askApproval(ctx, call, tool, why);
  const cached = cachedResult(ctx, r);
  if (cached !== void 0) return await reads.flush() ?? await serveCached(ctx, call, cached);
  const replayed = ctx.state.forkedFrom && !needs ? await replayedResult(ctx, r, tools) : void 0;
  if (replayed) return await reads.flush() ?? await serveCached(ctx, call, replayed);
  if (tool.readOnly && !needs) return await reads.add(r);
  return await reads.flush() ?? await runWrite(ctx, session, r);
});
var LazyRunnable = class {
  call;
  tool;
  args;
  #signature;
  constructor(call, tool, args) {
    this.call = call;
    this.tool = tool;
    this.args = args;
  }
  get signature() {
    return this.#signature ??= callSignature(this.tool.name, this.args);
  }
};
var runnable = (function runnable(call, tool, args) {
  return new LazyRunnable(call, tool, args);
});
var NOTHING = Promise.resolve(null);
var readBatch = (function readBatch(ctx, session) {
  const concurrency = Math.max(1, ctx.options.concurrency ?? 4);
  let queued = [];
  const flush = () => {
    const todo = queued;
    queued = [];
    return todo.length ? runReads(ctx, session, todo) : NOTHING;
  };
  return {
    add: (r) => {
      queued.push(r);
      return queued.length >= concurrency ? flush() : NOTHING;
    },
    flush
  };
});
var runReads = (async function runReads(ctx, session, todo) {
  const { signal } = ctx;
  const outcomes = await settleAll(todo.map((r) => execute(ctx, r)));
  if (signal.aborted) {
    for (let i = 0; i < todo.length; i++) {
      const o = outcomes[i];
      if (o.status === "fulfilled" && o.value.finished) {
        await record(ctx, session, todo[i], o.value.outcome);
      }
    }
    return exit.cancelled(signal);
  }
  for (let i = 0; i < todo.length; i++) {
    const o = outcomes[i];
    if (o.status === "rejected") throw o.reason;
    const stopped2 = await record(ctx, session, todo[i], o.value.outcome);
    if (stopped2) return stopped2;
  }
  return null;
});
var settleAll = (async function settleAll(promises) {
  if (promises.length !== 1) return await Promise.allSettled(promises);
  try {
    return [
      {
        status: "fulfilled",
        value: await promises[0]
      }
    ];
  } catch (reason) {
    return [
      {
        status: "rejected",
        reason
      }
    ];
  }
});
var verdictNeeded = (function verdictNeeded(ctx, r, needs) {
  const { state } = ctx;
  if (state.approved.includes(r.call.id)) return null;
  const uncertain = state.inFlight.includes(r.call.id) && !r.tool.idempotent;
  if (uncertain) return "uncertain_effect";
  return needs ? "needs_approval" : null;
});
var recordInvalid = (async function recordInvalid(ctx, session, call, error) {
  await ctx.emit({
    type: "tool_result",
    runId: ctx.state.runId,
    toolName: call.function.name,
    callId: call.id,
    ms: 0,
    ok: false,
    error
  });
  return await record(ctx, session, {
    call,
    tool: void 0,
    signature: ""
  }, {
    type: "tool-error",
    error,
    permanent: false
  });
});
var runWrite = (async function runWrite(ctx, session, r) {
  const { state, signal } = ctx;
  const { call } = r;
  if (!state.inFlight.includes(call.id)) state.inFlight.push(call.id);
  state.approved = state.approved.filter((id) => id !== call.id);
  await ctx.save();
  const { outcome, finished } = await execute(ctx, r);
  if (signal.aborted) {
    if (finished) await record(ctx, session, r, outcome);
    return exit.cancelled(signal);
  }
  return await record(ctx, session, r, outcome);
});
var askApproval = (async function askApproval(ctx, call, tool, why) {
  await ctx.emit({
    type: "approval_required",
    runId: ctx.state.runId,
    toolName: tool.name,
    callId: call.id,
    args: call.function.arguments,
    why
  });
  const what = why === "uncertain_effect" ? `${tool.name} (${call.id}) was interrupted before its result was recorded; its effect is uncertain` : `${tool.name} (${call.id}) needs approval`;
  return exit.interrupted({
    type: "approval",
    callId: call.id,
    toolName: tool.name,
    args: displayArgs(call),
    why
  }, `awaiting a verdict: ${what}`);
});
var serveCached = (async function serveCached(ctx, call, output) {
  const { state } = ctx;
  const replayed = typeof output === "string" ? void 0 : output;
  state.messages.push({
    role: "tool",
    tool_call_id: call.id,
    name: call.function.name,
    content: replayed ? replayed.content : output
  });
  await ctx.save();
  await ctx.emit({
    type: "tool_result",
    runId: state.runId,
    toolName: call.function.name,
    callId: call.id,
    ms: 0,
    ok: true,
    ...replayed ? {
      replayed: {
        runId: replayed.runId,
        callId: replayed.callId
      }
    } : {
      cached: true
    }
  });
  return null;
});
var execute = (async function execute(ctx, r) {
  const { state, signal } = ctx;
  const { call, tool } = r;
  await ctx.emit({
    type: "tool_start",
    runId: state.runId,
    toolName: tool.name,
    callId: call.id,
    args: call.function.arguments
  });
  const toolCtx = {
    signal,
    progress: (label, fraction) => void ctx.emit({
      type: "tool_progress",
      runId: state.runId,
      toolName: tool.name,
      callId: call.id,
      label,
      fraction
    }),
    runId: state.runId,
    rootId: state.rootId,
    callId: call.id,
    idempotencyKey: `${state.runId}:${call.id}`,
    runChild: ctx.runChild(call.id)
  };
  const started = performance.now();
  state.toolRuns += 1;
  const outcome = await invokeTool(tool, r.args, toolCtx).catch((e) => {
    if (signal.aborted) return null;
    throw e;
  });
  const ms = performance.now() - started;
  if (!outcome) {
    return {
      outcome: {
        type: "tool-error",
        error: "cancelled",
        permanent: false
      },
      finished: false
    };
  }
  await ctx.emit({
    type: "tool_result",
    runId: state.runId,
    toolName: tool.name,
    callId: call.id,
    ms,
    ok: outcome.type === "tool-result",
    ...outcome.type === "tool-error" ? {
      error: outcome.error
    } : {},
    ...outcome.type === "tool-suspended" ? {
      suspended: {
        interruption: outcome.interruption,
        reason: outcome.reason
      }
    } : {}
  });
  return {
    outcome,
    finished: true
  };
});
var errorText = (function errorText(ctx, outcome, call) {
  const policy = ctx.options.toolErrors ?? "describe";
  if (typeof policy === "function") return policy(outcome.cause ?? new Error(outcome.error), call);
  return policy === "generic" ? "Error" : `Error: ${outcome.error}`;
});
var record = (async function record(ctx, session, r, outcome) {
  const { state, options } = ctx;
  const { call, tool } = r;
  const name = call.function.name;
  if (outcome.type === "tool-suspended") {
    return exit.interrupted(outcome.interruption, outcome.reason);
  }
  let content;
  let stop = null;
  if (outcome.type === "tool-result") {
    content = outcome.output;
    session.lastFailure = null;
    if (tool && options.dedupe && (tool.readOnly || options.dedupeAll)) {
      state.resultCache[r.signature] = call.id;
    }
  } else {
    content = errorText(ctx, outcome, call);
    const strict = options.stopOnPermanentError ?? true;
    const failure2 = `${r.signature}\0${outcome.error}`;
    const fail = (reason) => exit.failed(reason, outcome.error);
    if (outcome.permanent && strict) stop = fail(`${name} failed permanently: ${outcome.error}`);
    else if ((options.toolErrors ?? "describe") === "fatal") {
      stop = fail(`${name} failed (tool errors are fatal): ${outcome.error}`);
    } else if (strict && r.signature && session.lastFailure === failure2) {
      stop = fail(`${name} failed the same way twice in a row: ${outcome.error}`);
    }
    session.lastFailure = failure2;
  }
  state.inFlight = state.inFlight.filter((id) => id !== call.id);
  state.messages.push({
    role: "tool",
    tool_call_id: call.id,
    name,
    content
  });
  if (!stop) await ctx.save();
  return stop;
});

// harness/budget_gate.ts
var MAX_RESERVED_TOKENS = 4096;
var DEFAULT_MIN_REPLY_TOKENS = 32;
var newBudgetGate = (function newBudgetGate() {
  return {
    inFlight: 0,
    reservedUsd: 0
  };
});
var planCall = (function planCall(b) {
  const { gate } = b;
  if (!b.hard && gate.inFlight === 0) return {
    type: "call",
    maxTokens: void 0,
    reservedUsd: 0
  };
  const own = b.ownUsd();
  const ancestors = b.ancestorsUsd();
  const remaining = Math.min(own, (ancestors ?? own) - gate.reservedUsd);
  const promptUsd = b.promptUsd();
  const bought = Math.floor((remaining - promptUsd) * 1e6 / b.outputPerMillion);
  const reserving = gate.inFlight > 0 || ancestors !== void 0;
  const cap = Math.min(reserving ? MAX_RESERVED_TOKENS : Infinity, b.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  const maxTokens = Math.min(bought, cap);
  const left = `$${Math.max(0, remaining).toFixed(6)}`;
  if (!(maxTokens >= 1)) {
    const why = b.hard ? "hard budget" : "the rest is reserved by calls in flight";
    return {
      type: "refused",
      reason: `budget spent: the next prompt alone costs $${promptUsd.toFixed(6)} and ${left} is left (${why}, not called)`
    };
  }
  const least = Math.min(b.minReplyTokens ?? DEFAULT_MIN_REPLY_TOKENS, cap);
  if (b.hard && maxTokens < least) {
    return {
      type: "refused",
      reason: `budget spent: ${left} is left, which after the next prompt ($${promptUsd.toFixed(6)}) buys ${maxTokens} reply token${maxTokens === 1 ? "" : "s"}, fewer than the ${least} a useful reply needs (minReplyTokens; hard budget, not called)`
    };
  }
  const reservedUsd = reserving ? promptUsd + maxTokens * b.outputPerMillion / 1e6 : 0;
  return {
    type: "call",
    maxTokens,
    reservedUsd
  };
});
var reserve = (function reserve(gate, usd) {
  gate.inFlight += 1;
  gate.reservedUsd = roundUsd(gate.reservedUsd + usd);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    gate.inFlight -= 1;
    gate.reservedUsd = roundUsd(gate.reservedUsd - usd);
    const wakers = waiting.get(gate);
    if (wakers) {
      for (const wake of [
        ...wakers
      ]) wake();
    }
  };
});
var waiting = /* @__PURE__ */ new WeakMap();
var mayFitLater = (function mayFitLater(gate) {
  return gate.inFlight > 0 && gate.reservedUsd > 0;
});
var callSettled = (function callSettled(gate, signal) {
  if (gate.inFlight === 0 || signal.aborted) return Promise.resolve();
  const wakers = waiting.get(gate) ?? /* @__PURE__ */ new Set();
  waiting.set(gate, wakers);
  return new Promise((resolve) => {
    const wake = () => {
      wakers.delete(wake);
      signal.removeEventListener("abort", wake);
      resolve();
    };
    wakers.add(wake);
    signal.addEventListener("abort", wake, {
      once: true
    });
  });
});

// harness/text_deltas.ts
var textDeltas = (function textDeltas(ctx) {
  if (!ctx.options.trace) return void 0;
  const turn = ctx.state.turns + 1;
  return (delta) => {
    if (ctx.signal.aborted) return;
    ctx.emit({
      type: "text_delta",
      runId: ctx.state.runId,
      delta,
      turn
    }).catch(() => {
    });
  };
});
var textReset = (function textReset(ctx) {
  if (!ctx.options.trace) return void 0;
  const turn = ctx.state.turns + 1;
  return () => {
    if (ctx.signal.aborted) return;
    const event = {
      type: "text_delta",
      runId: ctx.state.runId,
      delta: "",
      turn,
      reset: true
    };
    ctx.emit(event).catch(() => {
    });
  };
});

// harness/call_ids.ts
var runUniqueIds = (function runUniqueIds(calls, transcript, turn) {
  const used = usedIds(transcript);
  const inReply = /* @__PURE__ */ new Set();
  return calls.map((c, i) => {
    const given2 = typeof c.id === "string" && c.id ? c.id : "";
    const plain = isPlainName(given2, true);
    let id = plain ? given2 : `call_${turn}_${i}`;
    let wireId;
    if (given2 && !inReply.has(given2) && (used.has(given2) || !plain)) wireId = given2;
    for (let n = 0; used.has(id) || inReply.has(id); n++) {
      id = `${plain ? given2 : "call"}_t${turn}_${i}${n ? `_${n}` : ""}`;
    }
    inReply.add(given2);
    inReply.add(id);
    const fn2 = {
      name: String(c.function?.name ?? ""),
      arguments: String(c.function?.arguments ?? "")
    };
    return wireId !== void 0 ? {
      id,
      wireId,
      type: "function",
      function: fn2
    } : {
      id,
      type: "function",
      function: fn2
    };
  });
});
var callIds = new TranscriptScan({
  start: () => /* @__PURE__ */ new Set(),
  step(ids, m) {
    if (m.role !== "assistant") return;
    for (const c of m.tool_calls ?? []) {
      ids.add(c.id);
      if (c.wireId) ids.add(c.wireId);
    }
  }
});
var usedIds = (function usedIds(transcript) {
  return callIds.of(transcript, void 0);
});
var toWire = (function toWire(messages) {
  if (!anyRenamed(messages)) return messages;
  const wire = /* @__PURE__ */ new Map();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) if (c.wireId) wire.set(c.id, c.wireId);
  }
  return messages.map((m) => {
    if (m.role === "tool") {
      const id = wire.get(m.tool_call_id);
      return id === void 0 ? m : {
        ...m,
        tool_call_id: id
      };
    }
    if (m.role !== "assistant" || !m.tool_calls) return m;
    return {
      ...m,
      tool_calls: m.tool_calls.map(({ wireId, ...c }) => wireId ? {
        ...c,
        id: wireId
      } : c)
    };
  });
});
var renames = new TranscriptScan({
  start: () => ({
    renamed: false
  }),
  step(found, m) {
    found.renamed ||= m.role === "assistant" && m.tool_calls?.some((c) => !!c.wireId) === true;
  }
});
var anyRenamed = (function anyRenamed(messages) {
  return renames.of(messages, void 0).renamed;
});

// harness/lost_replies.ts
async function countLostReplies(ctx, lost, reportedPrompt, definitions, other) {
  if (!lost?.length) return;
  const { state, options } = ctx;
  let estimate = tokenCount(reportedPrompt) ?? (other ? other.promptTokens : ctx.lastPromptTokens);
  const promptOf = async (reply) => {
    const reported2 = tokenCount(reply.prompt_tokens);
    if (reported2 !== void 0) return reported2;
    if (estimate === null) {
      await loadTokenizer();
      estimate = countPromptTokens(state.messages, definitions);
    }
    return estimate;
  };
  const prices = other?.prices ?? pricesFor(options.prices ?? options.model.prices, options.model.name);
  for (const reply of lost) {
    const prompt = await promptOf(reply);
    const usd = computeCost({
      prompt_tokens: prompt,
      completion_tokens: reply.completion_tokens
    }, prices);
    state.estimatedUsd = addUsd(state.estimatedUsd, usd);
    await ctx.spend(usd, null);
    await ctx.emit({
      type: "spend_estimated",
      runId: state.runId,
      turn: state.turns + 1,
      prompt_tokens: prompt,
      completion_tokens: reply.completion_tokens,
      basis: "lost_reply",
      ...other ? {
        kind: other.kind
      } : {},
      reason: reply.reason,
      usd,
      costUsd: state.costUsd
    });
  }
}
async function countInvalidUsage(ctx, reply, problem, definitions, other) {
  await loadTokenizer();
  const completion_tokens = countCompletionTokens(reply.message);
  const reason = `the model reported invalid usage (${problem})`;
  const prompt = reply.usage?.prompt_tokens;
  await countLostReplies(ctx, [
    {
      completion_tokens,
      reason
    }
  ], prompt, definitions, other);
  return reason;
}

// harness/model_turn.ts
var promptCounter = (function promptCounter(definitions) {
  let counted = 0;
  let tokens = -1;
  let seen = null;
  return (messages) => {
    if (tokens < 0 || messages !== seen) {
      [tokens, counted] = [
        countPromptTokens([], definitions),
        0
      ];
    }
    seen = messages;
    for (; counted < messages.length; counted++) tokens += countMessageTokens(messages[counted]);
    return tokens;
  };
});
var modelTurn = (async function modelTurn(ctx, definitions, promptTokens) {
  const prices = pricesFor(ctx.options.prices ?? ctx.options.model.prices, ctx.options.model.name);
  const left = ctx.remainingUsd();
  const counted = {
    tokens: void 0
  };
  while (needsLocalCount(ctx) && !tokenizerLoaded()) await loadTokenizer();
  const plan = planTurn(ctx, prices, promptTokens, counted);
  if (plan.type === "refused") {
    if (!mayFitLater(ctx.gate)) return exit.budget(plan.reason);
    await callSettled(ctx.gate, ctx.signal);
    return null;
  }
  const release = reserve(ctx.gate, plan.reservedUsd);
  try {
    return await callAndCommit(ctx, definitions, plan, {
      counted,
      prices,
      left,
      release
    });
  } finally {
    release();
  }
});
var callAndCommit = (async function callAndCommit(ctx, definitions, plan, { counted, prices, left, release }) {
  if (ctx.options.store && !ctx.state.modelCall) await ctx.save();
  const called = await callModel(ctx, definitions, plan);
  if (called === null || "status" in called) return called;
  if (called.reply.lost?.length) {
    await countLostReplies(ctx, called.reply.lost, called.reply.usage?.prompt_tokens, definitions);
  }
  learnPromptRatio(ctx.state, counted.tokens, called.reply.usage?.prompt_tokens);
  const badUsage = usageProblem(called.reply.usage);
  if (badUsage) {
    const reason = await countInvalidUsage(ctx, called.reply, badUsage, definitions);
    return exit.failed(`${reason}; the reply is counted as an estimate`, badUsage);
  }
  const message = await commitTurn(ctx, called.reply, called.ms, prices, release);
  const over = ctx.options.budgetMode === "hard" ? await overspent(ctx, called.reply, plan.maxTokens, left, prices) : null;
  return over ?? cutByHardBudget(ctx, called.reply, message);
});
var needsLocalCount = (function needsLocalCount(ctx) {
  return ctx.options.budgetMode === "hard" || ctx.gate.inFlight > 0;
});
var planTurn = (function planTurn(ctx, prices, promptTokens, counted) {
  const { state, options } = ctx;
  return planCall({
    gate: ctx.gate,
    hard: options.budgetMode === "hard",
    ownUsd: () => ctx.remainingUsd(),
    ancestorsUsd: () => options.budgetLink?.remainingUsd(),
    promptUsd: () => {
      counted.tokens = promptTokens(ctx.window.messages(state));
      const estimate = promptEstimate(state, counted.tokens);
      return computeCost({
        prompt_tokens: estimate,
        completion_tokens: 0
      }, prices);
    },
    outputPerMillion: prices.outputPerMillion,
    maxOutputTokens: prices.maxOutputTokens,
    minReplyTokens: options.minReplyTokens
  });
});
var learnPromptRatio = (function learnPromptRatio(state, local, reported2) {
  if (!local || typeof reported2 !== "number" || !Number.isFinite(reported2) || reported2 <= 0) return;
  const seen = Math.round(reported2 / local * 1e4) / 1e4;
  if (seen > (state.promptRatio ?? 0)) state.promptRatio = seen;
});
var overspent = (async function overspent(ctx, reply, maxTokens, left, prices) {
  const { state } = ctx;
  const turnCost = computeCost(reply.usage, prices);
  const over = roundUsd(turnCost - left);
  if (!(over > 0)) return null;
  await ctx.emit({
    type: "budget_overspent",
    runId: state.runId,
    turnCostUsd: turnCost,
    leftUsd: roundUsd(left),
    overUsd: over,
    maxTokens: maxTokens ?? null,
    completion_tokens: reply.usage.completion_tokens
  });
  const ignored = maxTokens !== void 0 && reply.usage.completion_tokens > maxTokens ? `; it returned ${reply.usage.completion_tokens} reply tokens for max_tokens ${maxTokens}` : "";
  return exit.budget(`budget exceeded: the provider overspent the hard budget by $${over.toFixed(6)} (the reply cost $${turnCost.toFixed(6)} with $${roundUsd(left).toFixed(6)} left${ignored})`);
});
var callModel = (async function callModel(ctx, definitions, plan) {
  const { state, options, signal } = ctx;
  const started = performance.now();
  try {
    const reply = await options.model.complete({
      messages: ctx.window.messages(state),
      tools: definitions,
      maxTokens: plan.maxTokens,
      ...ctx.output?.mode === "json_schema" ? {
        output: ctx.output.format
      } : {},
      onText: textDeltas(ctx),
      onReset: textReset(ctx)
    }, signal);
    return {
      reply,
      ms: performance.now() - started
    };
  } catch (e) {
    if (signal.aborted) return exit.cancelled(signal);
    await countLostReplies(ctx, e.lost, void 0, definitions);
    if (ctx.window.retriesAfter(state, e)) return null;
    const message = messageOf(e);
    const kind = e.kind;
    return exit.failed(`model call failed${kind ? ` (${kind})` : ""}: ${message}`, message);
  }
});
var commitTurn = (async function commitTurn(ctx, reply, ms, prices, spent) {
  const { state } = ctx;
  const message = normalizeReply(reply.message, state);
  const usage = reply.usage;
  const turnCost = computeCost(usage, prices);
  state.turns += 1;
  state.usage.prompt_tokens += usage.prompt_tokens;
  state.usage.completion_tokens += usage.completion_tokens;
  ctx.lastPromptTokens = usage.prompt_tokens;
  ctx.lastFinish = reply.finishReason;
  const told = ctx.spend(turnCost, null);
  if (told) await told;
  spent();
  state.messages.push(message);
  await ctx.emit({
    type: "turn",
    runId: state.runId,
    turn: state.turns,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    turnCostUsd: turnCost,
    costUsd: state.costUsd,
    finish: reply.finishReason,
    ms
  });
  if (!message.tool_calls?.length) state.modelCall = null;
  else if (ctx.options.store) await ctx.save();
  return message;
});
var usageProblem = (function usageProblem(usage) {
  if (typeof usage !== "object" || usage === null) return `usage is ${usage}`;
  for (const k of [
    "prompt_tokens",
    "completion_tokens"
  ]) {
    const v = usage[k];
    if (tokenCount(v) === void 0) return `${k} is ${v}`;
  }
  return null;
});
var cutByHardBudget = (function cutByHardBudget(ctx, reply, message) {
  if (reply.finishReason !== "length" || message.tool_calls?.length || ctx.options.budgetMode !== "hard") return null;
  if (!ctx.output) ctx.state.output = message.content ?? "";
  return exit.budget("budget spent: the reply was cut at the tokens the budget could buy (hard budget)");
});
var normalizeReply = (function normalizeReply(m, state) {
  const calls = runUniqueIds(m.tool_calls ?? [], state.messages, state.turns);
  return calls.length ? {
    role: "assistant",
    content: m.content ?? null,
    tool_calls: calls
  } : {
    role: "assistant",
    content: m.content ?? ""
  };
});

// harness/child_run.ts
var childRunner = (function childRunner(ctx, callId, run2) {
  return async (child, options) => {
    const parentId = ctx.state.runId;
    checkChild(child, parentId, callId, options);
    const stored = await loadChild(ctx.options.store, child.runId, parentId);
    if (stored) {
      const unrecorded = stored.costUsd - (ctx.state.callSpend[callId] ?? 0);
      if (unrecorded > 1e-12) await ctx.spend(unrecorded, callId);
      ctx.childSaved(callId, stored.costUsd);
      if (stored.status !== "running" && stored.status !== "interrupted") return stored;
    } else {
      await ctx.options.store?.save(child);
      ctx.childSaved(callId, child.costUsd);
    }
    return await run2(stored ?? child, childOptions(ctx, callId, options));
  };
});
var childOptions = (function childOptions(ctx, callId, o) {
  const parent = ctx.options;
  const own = checkLimits(o.limits ?? {});
  return {
    ...parent,
    model: o.model ?? parent.model,
    tools: o.tools,
    // The parent's output schema is its own answer's: a child has its own, or none.
    output: o.output,
    limits: {
      maxTurns: own.maxTurns,
      maxBudgetUsd: Math.min(own.maxBudgetUsd, Math.max(0, ctx.remainingUsd()))
    },
    stopWhen: [
      ...o.inheritStopWhen === false ? [] : parent.stopWhen ?? [],
      ...o.stopWhen ?? []
    ],
    signal: ctx.signal,
    budgetLink: {
      gate: ctx.gate,
      remainingUsd: () => ctx.remainingUsd(),
      spend: (usd) => ctx.spend(usd, callId) ?? Promise.resolve(),
      saved: (usd) => ctx.childSaved(callId, usd)
    }
  };
});
var checkChild = (function checkChild(child, parentId, callId, o) {
  if (!child || typeof child.runId !== "string") {
    throw new TypeError("runChild(child, options): child must be a run (newRun)");
  }
  if (child.parentId !== parentId || child.parentCallId !== callId) {
    throw new TypeError(`runChild: run "${child.runId}" is not a child of call "${callId}" of run "${parentId}" (give newRun the option parent: { runId, rootId, callId })`);
  }
  if (!o || !Array.isArray(o.tools)) {
    throw new TypeError("runChild(child, options): options.tools must be an array");
  }
});
var loadChild = (async function loadChild(store, id, parentId) {
  if (!store) return null;
  try {
    const child = await store.load(id);
    if (child.parentId !== parentId) {
      throw new Error(`run "${id}" exists but is not a child of "${parentId}"`);
    }
    return child;
  } catch (e) {
    if (e instanceof RunNotFoundError) return null;
    throw e;
  }
});

// harness/unfinished_call.ts
function nextIsModelCall(state) {
  return state.status === "running" && pending(state).length === 0 && state.messages.at(-1)?.role !== "assistant";
}
function markModelCall(state, lastPromptTokens) {
  if (!nextIsModelCall(state)) state.modelCall = null;
  else {
    state.modelCall ??= {
      turn: state.turns + 1,
      since: isoNow(),
      promptTokens: lastPromptTokens
    };
  }
}
async function countUnfinishedCall(ctx) {
  const { state, options } = ctx;
  const marker = state.modelCall;
  if (!marker) return;
  state.modelCall = null;
  let tokens = marker.promptTokens;
  const basis = tokens === null ? "local_count" : "last_reported_prompt";
  if (tokens === null) {
    await loadTokenizer();
    tokens = countPromptTokens(ctx.window.messages(state), toolDefinitions(options.tools ?? []));
  }
  const model = marker.kind === "compaction" ? options.context?.summaryModel ?? options.model : options.model;
  const usd = computeCost({
    prompt_tokens: tokens,
    completion_tokens: 0
  }, pricesFor(options.prices ?? model.prices, model.name));
  state.estimatedUsd = addUsd(state.estimatedUsd, usd);
  await ctx.spend(usd, null);
  await ctx.emit({
    type: "spend_estimated",
    runId: state.runId,
    turn: marker.turn,
    prompt_tokens: tokens,
    basis,
    ...marker.kind ? {
      kind: marker.kind
    } : {},
    usd,
    costUsd: state.costUsd
  });
  await ctx.save();
}

// harness/event_chain.ts
var RESOLVED = Promise.resolve();
var eventChain = (function eventChain(sink) {
  let ended = false;
  let tail = null;
  return {
    emit(e) {
      if (!sink || ended) return RESOLVED;
      const event = {
        ...e,
        at: isoNow()
      };
      if (tail) return tail = tail.then(() => sink(event));
      let answer;
      try {
        answer = sink(event);
      } catch (error) {
        return tail = Promise.reject(error);
      }
      if (answer === void 0 || typeof answer?.then !== "function") {
        return RESOLVED;
      }
      return tail = Promise.resolve(answer);
    },
    end() {
      ended = true;
    }
  };
});

// harness/save_queue.ts
var SPEND_SAVE_MS = 250;
var saveQueue = (function saveQueue(save, intervalMs = SPEND_SAVE_MS) {
  let chain = Promise.resolve();
  let timer;
  let lastAt = -Infinity;
  let failure2 = null;
  let closed = false;
  const enqueue = (spendOnly) => {
    const next = chain.then(() => {
      lastAt = performance.now();
      return save(spendOnly);
    });
    chain = next.catch(() => {
    });
    return next;
  };
  const clearTimer = () => {
    if (timer !== void 0) clearTimeout(timer);
    timer = void 0;
  };
  const spendSave = () => {
    timer = void 0;
    enqueue(true).catch((e) => failure2 ??= e);
  };
  const checkpoint = async () => {
    clearTimer();
    try {
      await enqueue(false);
    } catch (e) {
      failure2 = null;
      throw e;
    }
    if (failure2 !== null) {
      const e = failure2;
      failure2 = null;
      throw e;
    }
  };
  return {
    checkpoint,
    spent() {
      if (closed || timer !== void 0) return;
      timer = setTimeout(spendSave, Math.max(0, lastAt + intervalMs - performance.now()));
    },
    close() {
      closed = true;
      return checkpoint();
    },
    abandon() {
      closed = true;
      clearTimer();
    }
  };
});

// harness/context_policy.ts
import { z as z5 } from "zod";
var DEFAULT_WINDOW_TOKENS = 128e3;
var DEFAULT_TRIGGER_SHARE = 0.83;
var ELIDE_TARGET = 0.6;
var policySchema;
function contextPolicySchema() {
  return policySchema ??= z5.strictObject({
    windowTokens: z5.int().min(1).optional().describe("The model's context window in tokens (default: its prices' contextTokens, else 128,000)"),
    trigger: z5.union([
      z5.number().gt(0).max(1),
      z5.strictObject({
        tokens: z5.int().min(1)
      })
    ]).optional().describe("Compact over this share of the window (default 0.83), or { tokens }"),
    keepTurns: z5.int().min(1).optional().describe("Recent turns kept verbatim (default 4)"),
    strategies: z5.array(z5.enum([
      "elide",
      "summarize"
    ])).min(1).optional().describe("Cheapest first (default elide, then summarize)"),
    summaryMaxTokens: z5.int().min(1).optional().describe("Reply cap of a summary (default 1,024)")
  });
}
var settingsSchema;
function contextSettingsSchema() {
  return settingsSchema ??= contextPolicySchema().extend({
    summaryModel: z5.string().min(1).max(200).optional().describe("The model that writes summaries, by name (default: the run's model)")
  });
}
function checkContextPolicy(policy) {
  if (typeof policy !== "object" || policy === null) {
    throw new RangeError(`context must be an object, got ${policy}`);
  }
  const { summaryModel, ...data } = policy;
  const parsed = contextPolicySchema().safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] ?? {
      path: [],
      message: parsed.error.message
    };
    const path = [
      "context",
      ...issue.path.map(String)
    ].join(".");
    throw new RangeError(`${path}: ${issue.message}`);
  }
  if (summaryModel !== void 0 && typeof summaryModel?.complete !== "function") {
    throw new RangeError("context.summaryModel must be a Model");
  }
}
function resolveContextPolicy(policy, model, prices) {
  checkContextPolicy(policy);
  const own = pricesFor(prices ?? model.prices, model.name);
  const windowTokens = policy.windowTokens ?? own.contextTokens ?? DEFAULT_WINDOW_TOKENS;
  const t = policy.trigger ?? DEFAULT_TRIGGER_SHARE;
  const summaryModel = policy.summaryModel ?? model;
  return {
    windowTokens,
    triggerTokens: typeof t === "number" ? Math.floor(windowTokens * t) : t.tokens,
    keepTurns: policy.keepTurns ?? 4,
    strategies: policy.strategies ?? [
      "elide",
      "summarize"
    ],
    summaryModel,
    summaryPrices: pricesFor(prices ?? summaryModel.prices, summaryModel.name),
    summaryMaxTokens: policy.summaryMaxTokens ?? 1024
  };
}

// harness/context_errors.ts
var CONTEXT_LENGTH = /context_length_exceeded|maximum context length|prompt is too long|context (?:window|size|length)|exceeds the maximum number of (?:input )?tokens/i;
var saysContextLength = (function saysContextLength(text) {
  return typeof text === "string" && CONTEXT_LENGTH.test(text);
});
var isContextLengthError = (function isContextLengthError(e) {
  return e instanceof ModelError && e.kind === "context_length";
});

// harness/compaction.ts
var MAX_SUMMARY_CHARS = 16e3;
async function compact(input) {
  const { ctx, policy, reason } = input;
  const messages = ctx.state.messages;
  const pre = ctx.state.context ?? emptyContext();
  const from = Math.max(headLength(messages), pre.summarizedTo);
  const keep = reason === "context_length" ? 1 : policy.keepTurns;
  const cut = keptFrom(messages, from, keep);
  if (cut === null) return null;
  const summarizes = policy.strategies.includes("summarize");
  if (policy.strategies.includes("elide")) {
    const elided = elidable(messages, Math.max(from, pre.elidedTo), cut);
    const next = {
      ...pre,
      elidedTo: Math.max(pre.elidedTo, cut)
    };
    const after = elided > 0 ? input.count(next) : input.before;
    const enough = reason === "trigger" && after <= policy.triggerTokens * ELIDE_TARGET;
    if (elided > 0 && (!summarizes || enough)) {
      await commit(input, {
        ...next,
        compactions: pre.compactions + 1
      }, {
        strategy: "elide",
        elided,
        after
      });
      return null;
    }
  }
  return summarizes ? await summarize(input, pre, from, cut) : null;
}
async function commit(input, next, o) {
  const { ctx } = input;
  const { state } = ctx;
  state.context = next;
  state.modelCall = null;
  ctx.lastPromptTokens = o.after;
  await ctx.emit({
    type: "compaction",
    runId: state.runId,
    compaction: next.compactions,
    strategy: o.strategy,
    reason: input.reason,
    turn: state.turns + 1,
    tokensBefore: input.before,
    tokensAfter: o.after,
    prompt_tokens: o.reply?.usage.prompt_tokens ?? 0,
    completion_tokens: o.reply?.usage.completion_tokens ?? 0,
    quotedUsd: o.quotedUsd ?? 0,
    compactionCostUsd: o.costUsd ?? 0,
    costUsd: state.costUsd,
    summarizedTurns: next.summary === null ? 0 : next.summaryTurns,
    elided: o.elided,
    ...o.strategy === "summarize" ? {
      summary: next.summary ?? ""
    } : {},
    ms: o.ms ?? 0
  });
  await ctx.save();
}
function request(input, pre, from, cut) {
  const { policy, ctx } = input;
  const messages = ctx.state.messages;
  const room = Math.max(1, policy.windowTokens - policy.summaryMaxTokens - 64);
  let shown2 = shownRange(messages, pre, from, cut);
  let req = summaryRequest(pre.summary, shown2);
  if (countPromptTokens(req) > room) {
    shown2 = shownRange(messages, {
      ...pre,
      elidedTo: cut
    }, from, cut);
    req = summaryRequest(pre.summary, shown2);
  }
  let tokens = countPromptTokens(req);
  if (tokens > room) {
    const text = truncateToTokens(req[1].content ?? "", room - (tokens - countPromptTokens([
      req[1]
    ])));
    req = [
      req[0],
      {
        role: "user",
        content: text
      }
    ];
    tokens = countPromptTokens(req);
  }
  return {
    messages: req,
    tokens
  };
}
async function summarize(input, pre, from, cut) {
  const { ctx, policy } = input;
  const { state, signal } = ctx;
  const req = request(input, pre, from, cut);
  const next = {
    ...pre,
    summarizedTo: cut,
    summaryTurns: pre.summaryTurns + turnsBetween(state.messages, from, cut),
    compactions: pre.compactions + 1
  };
  const quotedUsd = computeCost({
    prompt_tokens: req.tokens,
    completion_tokens: policy.summaryMaxTokens
  }, policy.summaryPrices);
  const bare = input.count({
    ...next,
    summary: ""
  });
  if (bare >= input.before) return null;
  const plan = planSummary(input, req.tokens, bare);
  if (plan.type === "refused") {
    if (!mayFitLater(ctx.gate)) return exit.budget(plan.reason);
    await callSettled(ctx.gate, signal);
    return "waited";
  }
  state.modelCall = {
    turn: state.turns + 1,
    since: isoNow(),
    promptTokens: req.tokens,
    kind: "compaction"
  };
  const release = reserve(ctx.gate, plan.reservedUsd);
  try {
    return await summaryCall(input, {
      req,
      next,
      plan,
      quotedUsd,
      release
    });
  } finally {
    release();
  }
}
async function summaryCall(input, { req, next, plan, quotedUsd, release }) {
  const { ctx, policy } = input;
  const { options, signal } = ctx;
  if (options.store) await ctx.save();
  const started = performance.now();
  const reply = await policy.summaryModel.complete({
    messages: req.messages,
    tools: [],
    maxTokens: plan.maxTokens ?? policy.summaryMaxTokens
  }, signal).catch((e) => ({
    failed: e
  }));
  const call = {
    prices: policy.summaryPrices,
    promptTokens: req.tokens,
    kind: "compaction"
  };
  if ("failed" in reply) {
    if (signal.aborted) return exit.cancelled(signal);
    await countLostReplies(ctx, reply.failed.lost, void 0, [], call);
    const message = messageOf(reply.failed);
    const kind = reply.failed.kind;
    return exit.failed(`compaction failed: the summary call failed${kind ? ` (${kind})` : ""}: ${message}`, message);
  }
  const ms = performance.now() - started;
  if (reply.lost?.length) {
    await countLostReplies(ctx, reply.lost, reply.usage?.prompt_tokens, [], call);
  }
  const bad = usageProblem(reply.usage);
  if (bad) {
    const reason = await countInvalidUsage(ctx, reply, bad, [], call);
    return exit.failed(`compaction failed: ${reason}; the summary is counted as an estimate`, bad);
  }
  return await commitSummary(input, next, {
    reply,
    ms,
    quotedUsd,
    spent: release
  }) ?? "summarized";
}
async function commitSummary(input, next, o) {
  const { ctx, policy } = input;
  const { state } = ctx;
  const { usage } = o.reply;
  const costUsd = computeCost(usage, policy.summaryPrices);
  state.modelCall = null;
  state.usage.prompt_tokens += usage.prompt_tokens;
  state.usage.completion_tokens += usage.completion_tokens;
  await ctx.spend(costUsd, null);
  o.spent();
  const summary = cutText((o.reply.message.content ?? "").trim(), MAX_SUMMARY_CHARS);
  const done = {
    ...next,
    summary,
    costUsd: addUsd(next.costUsd, costUsd),
    usage: {
      prompt_tokens: next.usage.prompt_tokens + usage.prompt_tokens,
      completion_tokens: next.usage.completion_tokens + usage.completion_tokens
    }
  };
  let after = input.count(done);
  if (after >= input.before && summary !== "") {
    const keep = countTokens(summary) - (after - input.before) - 1;
    done.summary = truncateToTokens(summary, Math.max(1, keep)).trimEnd();
    after = input.count(done);
  }
  await commit(input, done, {
    strategy: "summarize",
    elided: 0,
    after,
    ...o,
    costUsd
  });
  return summary === "" ? exit.failed("compaction failed: the summary call returned no text") : null;
}
function planSummary(input, promptTokens, nextPrompt) {
  const { ctx, policy } = input;
  const { options } = ctx;
  const hard = options.budgetMode === "hard";
  const own = pricesFor(options.prices ?? options.model.prices, options.model.name);
  const nextUsd = hard ? computeCost({
    prompt_tokens: nextPrompt + policy.summaryMaxTokens,
    completion_tokens: 1
  }, own) : 0;
  const promptUsd = computeCost({
    prompt_tokens: promptTokens,
    completion_tokens: 0
  }, policy.summaryPrices);
  const plan = planCall({
    gate: ctx.gate,
    hard,
    ownUsd: () => roundUsd(ctx.remainingUsd() - nextUsd),
    ancestorsUsd: () => options.budgetLink?.remainingUsd(),
    promptUsd: () => promptUsd,
    outputPerMillion: policy.summaryPrices.outputPerMillion,
    maxOutputTokens: policy.summaryMaxTokens
  });
  if (plan.type === "call" && (!hard || plan.maxTokens === policy.summaryMaxTokens)) return plan;
  if (!hard) return plan;
  const quoted = computeCost({
    prompt_tokens: promptTokens,
    completion_tokens: policy.summaryMaxTokens
  }, policy.summaryPrices);
  return {
    type: "refused",
    reason: `budget spent: a compaction (quoted $${quoted.toFixed(6)}) and the next turn ($${nextUsd.toFixed(6)}) cost more than the $${Math.max(0, ctx.remainingUsd()).toFixed(6)} left (hard budget, not compacted)`
  };
}

// harness/context_window.ts
var contextWindow = (function contextWindow(options) {
  const policyOrNull = options.context ? resolveContextPolicy(options.context, options.model, options.prices) : null;
  let view = [];
  let viewOf;
  let synced = 0;
  let forced = false;
  let retriedAt = -1;
  const messages = (state) => {
    const context = state.context;
    if (!context) return state.messages;
    if (viewOf !== context || synced > state.messages.length) {
      [view, viewOf, synced] = [
        contextView(state.messages, context),
        context,
        state.messages.length
      ];
    }
    for (; synced < state.messages.length; synced++) view.push(state.messages[synced]);
    return view;
  };
  const compactBefore = async (policy, ctx, definitions) => {
    await loadTokenizer();
    const { state } = ctx;
    const reason = forced ? "context_length" : "trigger";
    forced = false;
    const ratio = Math.max(1, state.promptRatio ?? 1);
    const tokens = countPromptTokens(messages(state), definitions);
    if (reason === "trigger" && Math.ceil(tokens * ratio) <= policy.triggerTokens) return null;
    const count = (c) => countPromptTokens(contextView(state.messages, c), definitions);
    const verdict = await compact({
      ctx,
      policy,
      reason,
      before: tokens,
      count
    });
    if (verdict === "waited" && reason === "context_length") forced = true;
    return verdict;
  };
  return {
    messages,
    // Asked before every model call: without a policy, no promise to wait for.
    beforeTurn: (ctx, definitions) => policyOrNull ? compactBefore(policyOrNull, ctx, definitions) : null,
    retriesAfter(state, error) {
      if (!policyOrNull || !isContextLengthError(error) || retriedAt === state.turns) return false;
      retriedAt = state.turns;
      forced = true;
      return true;
    }
  };
});

// harness/run.ts
var run = (function run(initial, options) {
  const observe = options?.observe;
  return observe ? observe(initial, options, execute2) : execute2(initial, options);
});
var execute2 = (async function execute2(initial, options) {
  checkOptions(initial, options);
  const state = cloneData(initial);
  markDrivenByRun(state, true);
  state.limits = checkLimits(options.limits ?? {}, state.limits);
  state.model = options.model.name;
  const output = planOutput(state, options);
  const events = eventChain(options.trace);
  const { ctx, saves } = runContext(state, options, events.emit, output);
  state.status = "running";
  state.interruption = null;
  state.stopReason = null;
  const start = () => announceFollowUp(ctx).then(() => countUnfinishedCall(ctx));
  const stop = await start().then(() => loop(ctx)).catch(tooLarge).catch((e) => {
    saves.abandon();
    throw e;
  });
  applyExit(state, stop);
  await stopped(ctx, stop, events.end).catch((e) => {
    saves.abandon();
    throw e;
  });
  await closeSaves(state, options, saves);
  markDrivenByRun(state, false);
  return state;
});
var checkOptions = (function checkOptions(initial, options) {
  if (!options || typeof options.model?.complete !== "function") {
    throw new TypeError("run(state, options): options.model must be a Model");
  }
  checkPrices(options.prices);
  checkPrices(options.model.prices, "model.prices");
  if (options.minReplyTokens !== void 0) {
    checkNonNegative("minReplyTokens", options.minReplyTokens, true);
  }
  if (!RESUMABLE_STATUSES.includes(initial.status)) {
    throw new RunStateError(initial.runId, initial.status, "resume");
  }
});
var runContext = (function runContext(state, options, emit, output) {
  const childStored = {};
  const saves = saveQueue(async (spendOnly) => {
    if (!options.store) return;
    if (!spendOnly) markModelCall(state, ctx.lastPromptTokens);
    state.updatedAt = isoNow();
    const saved = spendOnly ? storedSpendOnly(state, childStored) : state;
    await options.store.save(saved);
    options.budgetLink?.saved?.(saved.costUsd);
  });
  const ctx = {
    state,
    options,
    signal: options.signal ?? new AbortController().signal,
    gate: options.budgetLink?.gate ?? newBudgetGate(),
    emit,
    lastPromptTokens: null,
    lastFinish: null,
    window: contextWindow(options),
    output,
    save: () => options.store ? saves.checkpoint() : Promise.resolve(),
    remainingUsd: () => {
      const own = roundUsd(state.limits.maxBudgetUsd - state.costUsd);
      return Math.min(own, options.budgetLink?.remainingUsd() ?? Infinity);
    },
    spend: (usd, callId) => spend(ctx, usd, callId),
    childSaved: (callId, usd) => {
      childStored[callId] = usd;
      if (options.store) saves.spent();
    },
    runChild: (callId) => childRunner(ctx, callId, run)
  };
  return {
    ctx,
    saves
  };
});
var spend = (function spend(ctx, usd, callId) {
  const { state } = ctx;
  state.costUsd = addUsd(state.costUsd, usd);
  if (callId !== null) {
    state.childCostUsd = addUsd(state.childCostUsd, usd);
    state.callSpend[callId] = addUsd(state.callSpend[callId] ?? 0, usd);
  }
  return ctx.options.budgetLink?.spend(usd);
});
var applyExit = (function applyExit(state, stop) {
  state.status = stop.status;
  state.interruption = stop.interruption;
  state.stopReason = stop.reason;
  if ("error" in stop && stop.error !== void 0) state.error = stop.error;
  if ("failure" in stop && stop.failure !== void 0) state.failure = stop.failure;
  state.updatedAt = isoNow();
});
var stopped = (async function stopped(ctx, stop, end) {
  const { state } = ctx;
  const last = ctx.emit({
    type: "run_stopped",
    runId: state.runId,
    status: state.status,
    reason: state.stopReason ?? stop.reason,
    interruption: state.interruption,
    turns: state.turns,
    costUsd: state.costUsd
  });
  end();
  await last;
});
var closeSaves = (async function closeSaves(state, options, saves) {
  if (!options.store) return;
  const cut = await saves.close().then(() => null, tooLarge);
  if (cut) {
    state.status = cut.status;
    state.interruption = null;
    state.stopReason = cut.reason;
    state.error ??= cut.reason;
  }
});
var nextVerdict = (function nextVerdict(ctx, conditions, definitions) {
  const stop = firstStop(conditions, ctx.state);
  if (stop instanceof Promise) {
    return stop.then((v) => v ?? ancestorsBroke(ctx) ?? ctx.window.beforeTurn(ctx, definitions));
  }
  return stop ?? ancestorsBroke(ctx) ?? ctx.window.beforeTurn(ctx, definitions);
});
var loop = (async function loop(ctx) {
  const { state, options, signal } = ctx;
  const tools = new Map((options.tools ?? []).map((t) => [
    t.name,
    t
  ]));
  const definitions = [
    ...toolDefinitions(options.tools ?? []),
    ...answerTools(ctx.output)
  ];
  const conditions = [
    // Counted since the last user message: each message of a conversation gets the cap.
    isTurnCapReached(state.limits.maxTurns),
    isBudgetSpent(state.limits.maxBudgetUsd),
    ...options.stopWhen ?? []
  ];
  const session = {
    lastFailure: null
  };
  const prompt = promptCounter(definitions);
  for (; ; ) {
    if (signal.aborted) return exit.cancelled(signal);
    const calls = toolCallsToRun(state, ctx.output);
    if (calls.length) {
      const stopped3 = await runToolCalls(ctx, calls, tools, session);
      if (stopped3) return stopped3;
      continue;
    }
    const judging = judgeAnswer(ctx, ctx.output);
    const judged = judging && await judging;
    if (judged && judged !== "repair") return judged;
    const next = nextVerdict(ctx, conditions, definitions);
    const verdict = next instanceof Promise ? await next : next;
    if (verdict === "waited" || verdict === "summarized") continue;
    if (verdict) return verdictDuringRepair(state, verdict);
    const stopped2 = await modelTurn(ctx, definitions, prompt);
    if (stopped2) return stopped2;
  }
});
var storedSpendOnly = (function storedSpendOnly(state, childStored) {
  let lag = 0;
  const callSpend = {
    ...state.callSpend
  };
  for (const [callId, usd] of Object.entries(childStored)) {
    const ahead = roundUsd((callSpend[callId] ?? 0) - usd);
    if (ahead > 0) {
      lag = addUsd(lag, ahead);
      callSpend[callId] = usd;
    }
  }
  if (!(lag > 0)) return state;
  return {
    ...state,
    callSpend,
    costUsd: roundUsd(state.costUsd - lag),
    childCostUsd: roundUsd(state.childCostUsd - lag)
  };
});
var tooLarge = (function tooLarge(e) {
  if (e instanceof RunTooLargeError) return exit.failed(e.reason, e.reason);
  throw e;
});
var ancestorsBroke = (function ancestorsBroke(ctx) {
  const left = ctx.options.budgetLink?.remainingUsd() ?? Infinity;
  return left <= 0 ? exit.budget("budget spent: the parent run's budget is used up") : null;
});

// harness/verdict.ts
function awaitingCall(state, callId, action) {
  if (typeof callId !== "string" || callId === "") {
    throw new TypeError(`${action}(state, callId): callId must be a non-empty string`);
  }
  const verb = `${action} call "${callId}" of`;
  const i = state.interruption;
  if (state.status !== "interrupted" || i?.type !== "approval") {
    throw new RunStateError(state.runId, state.status, verb, `status is ${state.status}, not awaiting a verdict`);
  }
  if (i.runId && i.runId !== state.runId) {
    throw new RunStateError(state.runId, state.status, verb, `the call awaiting a verdict belongs to child run "${i.runId}"`);
  }
  const verdict = state.approved.includes(callId) ? "approved" : state.rejected.some((r) => r.callId === callId) ? "rejected" : null;
  if (verdict) {
    throw new RunStateError(state.runId, state.status, verb, `call "${callId}" was already ${verdict}; resume the run to continue`);
  }
  const call = pending(state).find((c) => c.id === callId);
  if (!call || i.callId !== callId) {
    throw new RunStateError(state.runId, state.status, verb, `the call awaiting a verdict is "${i.callId}"`);
  }
  return call;
}
function approve(state, callId) {
  awaitingCall(state, callId, "approve");
  const next = cloneData(state);
  next.approved.push(callId);
  return next;
}
function defaultRejectionText(toolName) {
  return `The user declined this ${toolName} call, so it was not run and nothing was changed. Do not report it as done.`;
}
function reject(state, callId, reason) {
  const call = awaitingCall(state, callId, "reject");
  const name = call.function.name;
  const trimmed = reason?.trim();
  const text = state.inFlight.includes(callId) ? `This ${name} call was interrupted before its result was recorded, so it may or may not have taken effect; the user declined to retry it${trimmed ? `: ${trimmed}` : ""}. Do not report it as done.` : trimmed ? `The user declined this ${name} call: ${trimmed}. It was not run and nothing was changed.` : defaultRejectionText(name);
  const next = cloneData(state);
  next.rejected.push({
    callId,
    reason: text
  });
  next.inFlight = next.inFlight.filter((id) => id !== callId);
  next.messages.push({
    role: "tool",
    tool_call_id: callId,
    name,
    content: text
  });
  return next;
}

// openai/provider_name.ts
var HOSTS = [
  [
    "api.openai.com",
    "openai"
  ],
  [
    ".openai.azure.com",
    "azure.ai.openai"
  ],
  [
    "generativelanguage.googleapis.com",
    "gcp.gemini"
  ],
  [
    "api.anthropic.com",
    "anthropic"
  ],
  [
    "api.deepseek.com",
    "deepseek"
  ],
  [
    "api.groq.com",
    "groq"
  ],
  [
    "api.mistral.ai",
    "mistral_ai"
  ],
  [
    "api.x.ai",
    "x_ai"
  ],
  [
    "api.perplexity.ai",
    "perplexity"
  ]
];
var providerName = (function providerName(baseUrl) {
  let host = "";
  try {
    host = new URL(baseUrl).hostname;
  } catch {
  }
  return HOSTS.find(([suffix]) => host === suffix || host.endsWith(suffix))?.[1] ?? "openai";
});

// harness/text_attempts.ts
var attemptText = (function attemptText(request2) {
  const { onText, onReset } = request2;
  if (!onText) return UNWATCHED;
  let shown2 = false;
  return {
    onText: (delta) => {
      if (!delta) return;
      shown2 = true;
      try {
        onText(delta);
      } catch {
      }
    },
    retrying() {
      if (!shown2) return;
      shown2 = false;
      try {
        onReset?.();
      } catch {
      }
    }
  };
});
var UNWATCHED = {
  onText: void 0,
  retrying() {
  }
};

// harness/watch_deadline.ts
var pending2 = /* @__PURE__ */ new Set();
var armed = null;
var watchDeadline = (function watchDeadline(ms, expire) {
  const deadline = {
    at: performance.now() + Math.max(0, ms),
    expire
  };
  pending2.add(deadline);
  if (!armed || armed.signal.aborted || deadline.at < armed.at) arm(deadline.at);
  else armed.signal.addEventListener("abort", fire);
  return () => {
    pending2.delete(deadline);
    if (pending2.size === 0) armed?.signal.removeEventListener("abort", fire);
  };
});
var arm = (function arm(at) {
  armed?.signal.removeEventListener("abort", fire);
  const now = performance.now();
  const until = Math.min(at, now + MAX_TIMER_MS);
  const signal = AbortSignal.timeout(Math.max(0, Math.ceil(until - now)));
  signal.addEventListener("abort", fire);
  armed = {
    at: until,
    signal
  };
});
var fire = (function fire() {
  armed = null;
  const now = performance.now();
  const due = [];
  let next = Infinity;
  for (const d of pending2) {
    if (d.at <= now) {
      pending2.delete(d);
      due.push(d);
    } else if (d.at < next) next = d.at;
  }
  if (next < Infinity) arm(next);
  for (const d of due) d.expire();
});

// openai/reply_words.ts
var readable = (function readable(v) {
  return typeof v === "string" ? v : v === void 0 || v === null ? "" : JSON.stringify(v);
});
var contentText = (function contentText(content) {
  if (content === void 0 || content === null) return null;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return void 0;
  let text = null;
  for (const part of content) {
    if (!isObject(part) || typeof part["type"] !== "string") return void 0;
    if (part["type"] !== "text") continue;
    if (typeof part["text"] !== "string") return void 0;
    text = (text ?? "") + part["text"];
  }
  return text;
});
var unseenText = (function unseenText(m) {
  const reasoning = reasoningText(m);
  const content = m["content"];
  if (!Array.isArray(content)) return reasoning;
  let text = reasoning;
  for (const part of content) {
    if (isObject(part) && part["type"] !== "text") text += partWords(part);
  }
  return text;
});
var reasoningText = (function reasoningText(m) {
  return readable(m["reasoning_content"]) || readable(m["reasoning"]);
});
var partWords = (function partWords(part) {
  const thinking = part["thinking"];
  if (typeof thinking === "string") return thinking;
  if (!Array.isArray(thinking)) return JSON.stringify(part);
  let text = "";
  for (const p of thinking) {
    text += isObject(p) && typeof p["text"] === "string" ? p["text"] : readable(p);
  }
  return text;
});

// openai/openai_reply.ts
var malformed = (function malformed(url, redact) {
  return (what, lost = []) => new ModelError("malformed", redact(`Malformed reply from ${url}: ${what}`), void 0, lost);
});
var isReportedError = (function isReportedError(body) {
  const error = body["error"];
  const said = isObject(error) || Array.isArray(error) || typeof error === "string" && !!error;
  const choices = body["choices"];
  return said && !(Array.isArray(choices) && choices.length > 0);
});
var reported = (function reported(url, redact) {
  return (body) => {
    const error = body["error"];
    const text = isObject(error) && typeof error["message"] === "string" ? error["message"] : "";
    const said = text || (typeof error === "string" ? error : JSON.stringify(error));
    const message = redact(`Error reported by ${url}: ${cutText(said, 200)}`);
    return new ModelError("server", message, void 0, spentAsReported(body));
  };
});
var spentAsReported = (function spentAsReported(body) {
  const usage = isObject(body["usage"]) ? body["usage"] : {};
  const completion = tokenCount(usage["completion_tokens"]);
  const prompt = tokenCount(usage["prompt_tokens"]);
  if (completion === void 0 || prompt === void 0) return [];
  const reason = "the provider reported an error, and usage";
  return [
    {
      completion_tokens: completion,
      prompt_tokens: prompt,
      reason
    }
  ];
});
var roughTokens = (function roughTokens(chars, maxTokens) {
  return Math.min(Math.ceil(chars / 4), maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
});
var readableReplyTokens = (async function readableReplyTokens(body) {
  const choice = Array.isArray(body["choices"]) ? body["choices"][0] : void 0;
  const raw = isObject(choice) && isObject(choice["message"]) ? choice["message"] : {};
  const calls = Array.isArray(raw["tool_calls"]) ? raw["tool_calls"] : [];
  const text = contentText(raw["content"]);
  const words = text === void 0 ? readable(raw["content"]) + reasoningText(raw) : (text ?? "") + unseenText(raw);
  const message = {
    role: "assistant",
    content: words + readable(raw["refusal"]) || null,
    tool_calls: calls.map((c) => {
      const f = isObject(c) && isObject(c["function"]) ? c["function"] : {};
      return fn("", readable(f["name"]), readable(f["arguments"]));
    })
  };
  await loadTokenizer();
  return countCompletionTokens(message);
});
var parseReply = (function parseReply(text, request2, check) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    const what = "body is not JSON";
    const lost = lostIfBegun(text, text.length, request2.maxTokens, what);
    return Promise.reject(check.bad(`${what}: ${JSON.stringify(cutText(check.redact(text), 200))}`, lost));
  }
  return parseBody(body, request2, check);
});
var lostIfBegun = (function lostIfBegun(head, chars, maxTokens, what) {
  if (!/^\s*\{/.test(head)) return [];
  return [
    {
      completion_tokens: roughTokens(chars, maxTokens),
      reason: lostReason(what)
    }
  ];
});
var lostReason = (function lostReason(what) {
  return `the reply was malformed: ${what}`;
});
var parseBody = (function parseBody(body, request2, check) {
  if (!isObject(body)) return Promise.reject(check.bad("body is not a JSON object"));
  if (isReportedError(body)) return Promise.reject(check.reported(body));
  try {
    const reply = validReply(body, request2);
    return reply instanceof Promise ? reply.catch((e) => asMalformed(e, body, check)) : Promise.resolve(reply);
  } catch (e) {
    return asMalformed(e, body, check);
  }
});
var asMalformed = (async function asMalformed(e, body, check) {
  if (!(e instanceof BadReply)) throw e;
  throw check.bad(e.what, [
    await lostOf(body, check.redact(e.what))
  ]);
});
var BadReply = class {
  what;
  constructor(what) {
    this.what = what;
  }
};
var lostOf = (async function lostOf(body, what) {
  const usage = isObject(body["usage"]) ? body["usage"] : {};
  const lost = {
    completion_tokens: tokenCount(usage["completion_tokens"]) ?? await readableReplyTokens(body),
    reason: lostReason(what)
  };
  const prompt = tokenCount(usage["prompt_tokens"]);
  if (prompt !== void 0) lost.prompt_tokens = prompt;
  return lost;
});
var validReply = (function validReply(body, request2) {
  if (!Array.isArray(body["choices"]) || body["choices"].length === 0) {
    throw new BadReply("no choices");
  }
  const choice = body["choices"][0];
  if (!isObject(choice) || !isObject(choice["message"])) {
    throw new BadReply("choices[0] has no message");
  }
  const raw = choice["message"];
  const text = contentText(raw["content"]);
  if (text === void 0) {
    throw new BadReply("choices[0].message.content is not a string or text parts");
  }
  const refusal = typeof raw["refusal"] === "string" ? raw["refusal"] : "";
  const content = refusal ? (text ?? "") + refusal : text;
  const message = {
    role: "assistant",
    content
  };
  const calls = parseToolCalls(raw["tool_calls"]);
  if (calls.length > 0) message.tool_calls = calls;
  const stated = body["usage"] === void 0 || body["usage"] === null ? void 0 : parseUsage(body["usage"]);
  const given2 = typeof choice["finish_reason"] === "string" ? choice["finish_reason"] : void 0;
  const finishReason = refusal && (given2 === void 0 || given2 === "stop") ? "content_filter" : given2 ?? (message.tool_calls ? "tool_calls" : "stop");
  const model = typeof body["model"] === "string" ? body["model"] : void 0;
  if (stated) return replyOf(message, stated, finishReason, model);
  return countedUsage(request2, message, unseenText(raw)).then((usage) => replyOf(message, usage, finishReason, model));
});
var replyOf = (function replyOf(message, usage, finishReason, model) {
  const reply = {
    message,
    usage,
    finishReason
  };
  if (model !== void 0) reply.model = model;
  return reply;
});
var parseToolCalls = (function parseToolCalls(raw) {
  if (raw === void 0 || raw === null) return [];
  if (!Array.isArray(raw)) throw new BadReply("choices[0].message.tool_calls is not an array");
  return raw.map((c, i) => {
    const at = `choices[0].message.tool_calls[${i}]`;
    if (!isObject(c)) throw new BadReply(`${at} is not an object`);
    if (c["id"] !== void 0 && c["id"] !== null && typeof c["id"] !== "string") {
      throw new BadReply(`${at}.id is not a string`);
    }
    const id = typeof c["id"] === "string" ? c["id"] : "";
    if (!isObject(c["function"])) throw new BadReply(`${at}.function is missing`);
    const { name, arguments: args } = c["function"];
    if (typeof name !== "string" || !name) throw new BadReply(`${at}.function.name is missing`);
    if (isObject(args)) return fn(id, name, JSON.stringify(args));
    if (typeof args !== "string") throw new BadReply(`${at}.function.arguments is not a string`);
    return fn(id, name, args);
  });
});
var countedUsage = (async function countedUsage(request2, message, unseen) {
  await loadTokenizer();
  return {
    prompt_tokens: countPromptTokens(request2.messages, request2.tools),
    completion_tokens: countCompletionTokens(message) + (unseen ? countTokens(unseen) : 0)
  };
});
var parseUsage = (function parseUsage(raw) {
  if (!isObject(raw)) throw new BadReply("usage is not an object");
  for (const k of [
    "prompt_tokens",
    "completion_tokens"
  ]) {
    const n = raw[k];
    if (tokenCount(n) === void 0) {
      throw new BadReply(`usage.${k} is not a non-negative integer (got ${JSON.stringify(n)})`);
    }
  }
  const usage = {
    prompt_tokens: raw["prompt_tokens"],
    completion_tokens: raw["completion_tokens"]
  };
  const cached = cachedTokens(raw);
  if (cached !== void 0) usage.cached_prompt_tokens = cached;
  return usage;
});
var cachedTokens = (function cachedTokens(usage) {
  const details = usage["prompt_tokens_details"];
  const n = isObject(details) ? details["cached_tokens"] : usage["prompt_cache_hit_tokens"];
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : void 0;
});
var fn = (function fn(id, name, args) {
  return {
    id,
    type: "function",
    function: {
      name,
      arguments: args
    }
  };
});

// openai/sse_reader.ts
var BUFFER_BYTES = 16384;
var spare = [];
var MAX_SPARE = 8;
var readSseData = (async function readSseData(stream, onData, options) {
  const { signal } = options;
  signal.throwIfAborted();
  let byob;
  let plain;
  try {
    byob = stream.getReader({
      mode: "byob"
    });
  } catch {
    plain = stream.getReader();
  }
  const reader = byob ?? plain;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {
  });
  signal.addEventListener("abort", onAbort);
  const lines2 = new SseLines(onData);
  const decoder = new TextDecoder();
  let buffer = byob ? new Uint8Array(spare.pop() ?? new ArrayBuffer(BUFFER_BYTES)) : void 0;
  const maxBytes = options.maxBytes ?? Infinity;
  let bytes = 0;
  try {
    for (; ; ) {
      let got;
      try {
        got = byob ? await byob.read(buffer) : await plain.read();
      } catch (e) {
        throw signal.aborted ? signal.reason : options.broke(e);
      }
      if (byob && got.value) buffer = new Uint8Array(got.value.buffer);
      if (signal.aborted) throw signal.reason;
      if (got.done) break;
      if ((bytes += got.value.byteLength) > maxBytes) {
        throw options.tooLarge?.(bytes) ?? new RangeError(`the body passed ${maxBytes} bytes`);
      }
      if (lines2.push(decoder.decode(got.value, {
        stream: true
      }))) return;
    }
    lines2.end(decoder.decode());
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {
    });
    if (buffer && !buffer.buffer.detached && buffer.buffer.byteLength === BUFFER_BYTES) {
      if (spare.length < MAX_SPARE) spare.push(buffer.buffer);
    }
  }
});
var SseLines = class {
  onData;
  #rest;
  #data;
  /** The last text ended in `\r`: a `\n` starting the next is the same line break. */
  #afterCr;
  #done;
  constructor(onData) {
    this.onData = onData;
    this.#rest = "";
    this.#data = null;
    this.#afterCr = false;
    this.#done = false;
  }
  /** Takes a piece of text; true once `onData` said it is done. */
  push(text) {
    let from = 0;
    if (this.#afterCr && text.charCodeAt(0) === 10) from = 1;
    this.#afterCr = false;
    const n = text.length;
    let lf = text.indexOf("\n", from);
    let cr = text.indexOf("\r", from);
    while (!this.#done) {
      if (lf >= 0 && lf < from) lf = text.indexOf("\n", from);
      if (cr >= 0 && cr < from) cr = text.indexOf("\r", from);
      const i = cr < 0 ? lf : lf < 0 ? cr : Math.min(lf, cr);
      if (i < 0) break;
      const piece = text.slice(from, i);
      this.#line(this.#rest ? this.#rest + piece : piece);
      this.#rest = "";
      from = i + 1;
      if (i === cr) {
        if (from === n) this.#afterCr = true;
        else if (text.charCodeAt(from) === 10) from++;
      }
    }
    if (!this.#done && from < n) this.#rest += text.slice(from);
    return this.#done;
  }
  /**
   * The body ended. An event whose lines all ended is dispatched without its
   * blank line (some servers omit the last), and so is a last `data:` line
   * without its line break when it is whole (`[DONE]`, or JSON that parses).
   * Any other last line was cut mid-event: that event is dropped, as the SSE
   * standard says, so the reader sees a stream that stopped early, not a
   * chunk of half a JSON text.
   */
  end(text) {
    if (this.push(text)) return;
    const last = this.#rest;
    this.#rest = "";
    if (last) {
      this.#line(last);
      if (last.startsWith("data:") && !whole(this.#data)) return void (this.#data = null);
    }
    if (this.#data !== null && !this.#done) this.#dispatch();
  }
  #line(line) {
    if (line === "") {
      if (this.#data !== null) this.#dispatch();
    } else if (line.startsWith("data:")) {
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      this.#data = this.#data === null ? value : `${this.#data}
${value}`;
    }
  }
  #dispatch() {
    const data = this.#data;
    this.#data = null;
    if (this.onData(data) === true) this.#done = true;
  }
};
var whole = (function whole(data) {
  if (data.trim() === "[DONE]") return true;
  try {
    const value = JSON.parse(data);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
});

// openai/openai_stream.ts
var StreamCutError = class extends Error {
  /** The body assembled from what arrived (its `finish_reason` null). */
  partial;
  /** Creates the error. */
  constructor(message, partial, options) {
    super(message, options);
    this.name = "StreamCutError";
    this.partial = partial;
  }
};
var overCap = (function overCap(options, out, bytes) {
  return withLostSoFar(options.bad(`the stream passed ${bytes} bytes (maxReplyBytes)`), options, out);
});
var withLostSoFar = (function withLostSoFar(e, options, out) {
  let chars = (out.content?.length ?? 0) + out.refusal.length + out.unseen.length;
  for (const c of out.calls.values()) chars += c.args.length + (c.name?.length ?? 0);
  const lost = {
    completion_tokens: roughTokens(chars, options.maxTokens),
    reason: e.message
  };
  return new ModelError(e.kind, e.message, e.status, [
    lost
  ]);
});
var Assembler = class {
  options;
  content;
  refusal;
  /** What the reply wrote and does not show, billed all the same (see `unseenText`). */
  unseen;
  calls;
  finish;
  usage;
  model;
  constructor(options) {
    this.options = options;
    this.content = null;
    this.refusal = "";
    this.unseen = "";
    this.calls = /* @__PURE__ */ new Map();
    this.finish = void 0;
    this.usage = void 0;
    this.model = void 0;
  }
  add(chunk) {
    const { bad, onText } = this.options;
    if (!isObject(chunk)) throw bad("a stream chunk is not a JSON object");
    if (isReportedError(chunk)) throw this.options.reported(chunk);
    if (typeof chunk["model"] === "string") this.model = chunk["model"];
    if (chunk["usage"] !== void 0 && chunk["usage"] !== null) this.usage = chunk["usage"];
    if (chunk["choices"] === void 0 || chunk["choices"] === null) return;
    if (!Array.isArray(chunk["choices"])) throw bad("a stream chunk's choices is not an array");
    const choice = chunk["choices"].find((c) => isObject(c) && (c["index"] ?? 0) === 0);
    if (!isObject(choice)) return;
    if (choice["finish_reason"] !== void 0 && choice["finish_reason"] !== null) {
      this.finish = choice["finish_reason"];
    }
    const delta = choice["delta"];
    if (delta === void 0 || delta === null) return;
    if (!isObject(delta)) throw bad("a stream chunk's delta is not an object");
    const text = contentText(delta["content"]);
    if (text === void 0) throw bad("a stream delta's content is not a string or text parts");
    if (text !== null) this.content = (this.content ?? "") + text;
    this.unseen += unseenText(delta);
    const refusal = typeof delta["refusal"] === "string" ? delta["refusal"] : "";
    if (refusal) this.refusal += refusal;
    const shown2 = (text ?? "") + refusal;
    if (onText && shown2) {
      try {
        onText(shown2);
      } catch {
      }
    }
    if (delta["tool_calls"] !== void 0 && delta["tool_calls"] !== null) {
      if (!Array.isArray(delta["tool_calls"])) {
        throw bad("a stream delta's tool_calls is not an array");
      }
      for (const t of delta["tool_calls"]) this.#addCall(t);
    }
  }
  #addCall(t) {
    const { bad } = this.options;
    if (!isObject(t)) throw bad("a streamed tool call is not an object");
    const index = typeof t["index"] === "number" ? t["index"] : this.calls.size;
    const parts = this.calls.get(index) ?? {
      args: ""
    };
    if (typeof t["id"] === "string" && t["id"]) parts.id = t["id"];
    if (typeof t["type"] === "string") parts.type = t["type"];
    const f = t["function"];
    if (isObject(f)) {
      if (typeof f["name"] === "string" && f["name"]) parts.name = (parts.name ?? "") + f["name"];
      if (typeof f["arguments"] === "string") parts.args += f["arguments"];
      else if (f["arguments"] !== void 0 && f["arguments"] !== null) {
        throw bad("a streamed tool call's arguments is not a string");
      }
    }
    this.calls.set(index, parts);
  }
  body() {
    const message = {
      role: "assistant",
      content: this.content
    };
    if (this.refusal) message["refusal"] = this.refusal;
    if (this.unseen) message["reasoning_content"] = this.unseen;
    if (this.calls.size) {
      message["tool_calls"] = [
        ...this.calls.entries()
      ].sort((a, b) => a[0] - b[0]).map(([, c]) => ({
        id: c.id,
        type: c.type ?? "function",
        function: {
          name: c.name,
          arguments: c.args
        }
      }));
    }
    const body = {
      choices: [
        {
          index: 0,
          message,
          finish_reason: this.finish ?? null
        }
      ]
    };
    if (this.usage !== void 0) body["usage"] = this.usage;
    if (this.model !== void 0) body["model"] = this.model;
    return body;
  }
};
var readChatStream = (async function readChatStream(stream, options) {
  const out = new Assembler(options);
  let done = false;
  let chunks = 0;
  const onData = (text) => {
    if (text.trim() === "[DONE]") return done = true;
    let chunk;
    try {
      chunk = JSON.parse(text);
    } catch {
      throw options.bad(`a stream chunk is not JSON: ${JSON.stringify(cutText(text, 200))}`);
    }
    out.add(chunk);
    chunks++;
    return false;
  };
  try {
    await readSseData(stream, onData, {
      signal: options.signal,
      maxBytes: options.maxBytes,
      tooLarge: (bytes) => overCap(options, out, bytes),
      broke: (e) => new StreamCutError(`the connection broke mid-reply: ${messageOf(e)}`, out.body(), {
        cause: e
      })
    });
  } catch (e) {
    const broken = e instanceof ModelError && (e.kind === "malformed" || e.kind === "server");
    throw broken && !e.lost.length && chunks > 0 ? withLostSoFar(e, options, out) : e;
  }
  if (out.finish === void 0) {
    const how = done ? "[DONE] came without a finish_reason" : "no finish_reason, usage or [DONE]";
    throw new StreamCutError(`the stream ended before the reply finished (${how})`, out.body());
  }
  return out.body();
});

// openai/openai_attempt.ts
var STATUS_TEXT = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
};
var attempt = (async function attempt(cfg, body, signal, request2, streaming) {
  const ctrl = new AbortController();
  let timedOut = false;
  const forget = watchDeadline(cfg.timeoutMs, () => {
    timedOut = true;
    ctrl.abort(new DOMException(`timed out after ${cfg.timeoutMs} ms`, "TimeoutError"));
  });
  const onOuterAbort = () => ctrl.abort(signal.reason);
  signal.addEventListener("abort", onOuterAbort);
  let answer;
  try {
    answer = await fetchAnswer(cfg, body, ctrl.signal, request2, streaming);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    return await failure(cfg, e, timedOut);
  } finally {
    forget();
    signal.removeEventListener("abort", onOuterAbort);
  }
  if ("streamed" in answer) return parseBody(answer.streamed, request2, cfg);
  const outcome = await interpret(cfg, answer, request2);
  if (streaming && "message" in outcome) cfg.onPlain();
  return outcome;
});
var fetchAnswer = (async function fetchAnswer(cfg, body, signal, request2, streaming) {
  const init = {
    method: "POST",
    headers: streaming ? cfg.streamHeaders : cfg.headers,
    body,
    signal
  };
  const sent = cfg.doFetch(cfg.url, init);
  const res = await (cfg.nativeFetch ? sent : raceSignal(sent, signal, (r) => void r.body?.cancel()));
  const { status, statusText } = res;
  const ok = status >= 200 && status < 300;
  const { bad, reported: reported2 } = cfg;
  const maxBytes = cfg.maxReplyBytes;
  if (streaming && ok && res.body && isEventStream(res.headers.get("content-type") ?? "")) {
    const streamed = await readChatStream(res.body, {
      onText: request2.onText,
      signal,
      bad,
      reported: reported2,
      maxBytes,
      maxTokens: request2.maxTokens
    });
    return {
      streamed
    };
  }
  const read = cappedText(res, maxBytes, bad, cfg.nativeFetch, ok ? request2 : null);
  const text = await (cfg.nativeFetch ? read : raceSignal(read, signal));
  return {
    status,
    statusText,
    text,
    retryAfter: ok ? null : res.headers.get("retry-after")
  };
});
var isEventStream = (function isEventStream(contentType) {
  return contentType.trimStart().slice(0, 17).toLowerCase() === "text/event-stream";
});
var cappedText = (function cappedText(res, maxBytes, bad, nativeFetch, billed) {
  const plain = nativeFetch && !res.headers.has("content-encoding");
  const length = plain ? res.headers.get("content-length") : null;
  const declared = length ? Number(length) : NaN;
  if (plain && declared <= maxBytes) return res.text();
  if (!res.body) return Promise.resolve("");
  return readCapped(res.body, declared, maxBytes, bad, billed);
});
var readCapped = (async function readCapped(body, declared, maxBytes, bad, billed) {
  const reader = body.getReader();
  const chunks = [];
  let bytes = 0;
  try {
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!value.byteLength) continue;
      bytes += value.byteLength;
      const passed = declared > maxBytes ? declared : bytes;
      if (passed > maxBytes) {
        const what = `the body passed ${passed} bytes (maxReplyBytes)`;
        const head = UTF8.decode((chunks[0] ?? value).subarray(0, 64));
        throw bad(what, billed ? lostIfBegun(head, passed, billed.maxTokens, what) : []);
      }
      chunks.push(value);
    }
  } catch (e) {
    reader.cancel().catch(() => {
    });
    throw e;
  }
  return chunks.length === 1 ? UTF8.decode(chunks[0]) : await new Blob(chunks).text();
});
var UTF8 = new TextDecoder();
var failure = (async function failure(cfg, e, timedOut) {
  if (e instanceof ModelError) throw e;
  if (!timedOut && !(e instanceof StreamCutError) && refused2(e)) {
    throw new ModelError("network", `Nothing listens at ${cfg.url}: connection refused`);
  }
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    throw new ModelError("network", `Cannot call ${cfg.url}: ${cfg.redact(messageOf(e))}`);
  }
  const detail = timedOut ? `timed out after ${cfg.timeoutMs} ms` : cfg.redact(messageOf(e));
  if (!(e instanceof StreamCutError)) {
    return {
      kind: "network",
      what: `Network error calling ${cfg.url}`,
      detail
    };
  }
  const lost = {
    completion_tokens: await readableReplyTokens(e.partial),
    reason: detail
  };
  const what = e.cause === void 0 ? `The stream from ${cfg.url} ended before the reply finished` : `Network error calling ${cfg.url}`;
  return {
    kind: "network",
    what,
    detail,
    lost
  };
});
var refused2 = (function refused2(e) {
  for (let err = e, depth = 0; err instanceof Error && depth < 3; err = err.cause, depth++) {
    if (err instanceof Deno.errors.ConnectionRefused || /connection refused/i.test(err.message)) {
      return true;
    }
  }
  return false;
});
var interpret = (function interpret(cfg, answer, request2) {
  const { status, statusText, retryAfter } = answer;
  if (status >= 200 && status < 300) {
    return parseReply(answer.text, request2, cfg);
  }
  const text = cfg.redact(answer.text);
  const line = cfg.redact(`${status} ${statusText || STATUS_TEXT[status] || "Error"} from ${cfg.url}`);
  if (status === 401 || status === 403) {
    throw new ModelError("auth", `${line}: check LLM_API_KEY`, status);
  }
  if (status === 429 || status >= 500) {
    const kind2 = status === 429 ? "rate_limited" : "server";
    const detail = cutText(text, 200);
    const wait = retryAfterMs(retryAfter);
    return {
      kind: kind2,
      what: line,
      detail,
      status,
      retryAfterMs: wait
    };
  }
  const kind = status === 400 && saysContextLength(text) ? "context_length" : "bad_request";
  throw new ModelError(kind, `${line}: ${errorMessage(text)}`, status);
});
var retryAfterMs = (function retryAfterMs(header) {
  if (header === null || header.trim() === "") return void 0;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1e3);
  const date = Date.parse(header);
  return Number.isNaN(date) ? void 0 : Math.max(0, date - Date.now());
});
var errorMessage = (function errorMessage(text) {
  try {
    const body = JSON.parse(text);
    const m = body?.error?.message ?? body?.error ?? body?.message;
    if (typeof m === "string" && m) return m;
  } catch {
  }
  return cutText(text, 200);
});

// openai/openai_model.ts
var atLeastOne = (function atLeastOne(name, value) {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`createOpenAIModel: ${name} must be an integer of at least 1, got ${value}`);
  }
  return value;
});
var nonNegative = (function nonNegative(name, value, integer) {
  if (!Number.isFinite(value) || value < 0 || integer && !Number.isInteger(value)) {
    throw new RangeError(`createOpenAIModel: ${name} must be a non-negative ${integer ? "integer" : "number"}, got ${value}`);
  }
  return value;
});
var redactor = (function redactor(options) {
  const secrets = /* @__PURE__ */ new Set();
  const add = (v) => {
    if (typeof v !== "string" || v.trim() === "") return;
    secrets.add(v);
    const token = schemeToken(v);
    if (token) secrets.add(token);
  };
  add(options.apiKey);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/auth|key|token|secret|cookie|session|password/i.test(name)) add(value);
  }
  const sorted = [
    ...secrets
  ].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return (text) => text;
  return (text) => sorted.reduce((t, secret) => t.split(secret).join("[redacted]"), text);
});
var schemeToken = (function schemeToken(value) {
  const v = value.trimStart();
  const scheme = SCHEMES.find((s) => v.slice(0, s.length).toLowerCase() === s);
  if (scheme === void 0) return void 0;
  const rest = v.slice(scheme.length);
  const token = rest.trimStart();
  if (token === rest || token === "") return void 0;
  for (let i = 0; i < token.length; i++) {
    if (token[i].trim() === "") return token.slice(0, i);
  }
  return token;
});
var SCHEMES = [
  "bearer",
  "basic",
  "token"
];
var responseFormat = (function responseFormat(output) {
  return {
    type: "json_schema",
    json_schema: {
      name: output.name,
      schema: output.schema,
      strict: output.strict
    }
  };
});
var RUNTIME_FETCH = globalThis.fetch;
var chatPayload = (function chatPayload(model, request2) {
  const payload = {
    model,
    messages: toWire(request2.messages)
  };
  if (request2.tools.length > 0) payload["tools"] = request2.tools;
  if (request2.maxTokens !== void 0) payload["max_tokens"] = request2.maxTokens;
  if (request2.output) payload["response_format"] = responseFormat(request2.output);
  return payload;
});
var createOpenAIModel = (function createOpenAIModel(options) {
  if (typeof options.baseUrl !== "string" || !options.baseUrl) {
    throw new TypeError("createOpenAIModel: baseUrl must be a non-empty string");
  }
  if (typeof options.model !== "string" || !options.model) {
    throw new TypeError("createOpenAIModel: model must be a non-empty string");
  }
  const retry = {
    maxRetries: nonNegative("maxRetries", options.maxRetries ?? 3, true),
    baseMs: nonNegative("retryBaseMs", options.retryBaseMs ?? 250, false),
    maxRetryAfterMs: nonNegative("maxRetryAfterMs", options.maxRetryAfterMs ?? 3e4, false)
  };
  const headers = {
    "content-type": "application/json",
    accept: "application/json",
    ...options.apiKey ? {
      authorization: `Bearer ${options.apiKey}`
    } : {},
    ...options.headers
  };
  const client = {
    streams: options.stream ?? true
  };
  const url = `${withoutTrailingSlashes(options.baseUrl)}/chat/completions`;
  const redact = redactor(options);
  const cfg = {
    url,
    doFetch: options.fetch ?? globalThis.fetch,
    nativeFetch: (options.fetch ?? globalThis.fetch) === RUNTIME_FETCH,
    timeoutMs: nonNegative("timeoutMs", options.timeoutMs ?? 12e4, false),
    maxReplyBytes: atLeastOne("maxReplyBytes", options.maxReplyBytes ?? 32 * 2 ** 20),
    redact,
    bad: malformed(url, redact),
    reported: reported(url, redact),
    headers,
    streamHeaders: {
      ...headers,
      accept: "text/event-stream, application/json"
    },
    onPlain: () => client.streams = false
  };
  return {
    name: options.model,
    provider: options.provider ?? providerName(options.baseUrl),
    ...(options.structuredOutput ?? "json_schema") === "json_schema" ? {
      structuredOutput: "json_schema"
    } : {},
    complete: (request2, signal) => complete(cfg, retry, client, options.model, request2, signal)
  };
});
var complete = (async function complete(cfg, retry, client, model, request2, signal) {
  signal.throwIfAborted();
  const payload = chatPayload(model, request2);
  let plain, streamed;
  const bodyOf = (streaming) => streaming ? streamed ??= JSON.stringify({
    ...payload,
    stream: true,
    stream_options: {
      include_usage: true
    }
  }) : plain ??= JSON.stringify(payload);
  let fellBack = false;
  const lost = [];
  const text = attemptText(request2);
  const watched = text.onText ? {
    ...request2,
    onText: text.onText
  } : request2;
  for (let n = 1; ; n++) {
    const streaming = client.streams;
    let outcome;
    if (n > 1) text.retrying();
    try {
      outcome = await attempt(cfg, bodyOf(streaming), signal, watched, streaming);
    } catch (e) {
      if (fellBack && !streaming) client.streams = true;
      if (!streaming || fellBack || !(e instanceof ModelError) || e.status !== 400) {
        throw withLost(e, lost);
      }
      fellBack = true;
      client.streams = false;
      n--;
      continue;
    }
    if ("message" in outcome) return lost.length ? {
      ...outcome,
      lost
    } : outcome;
    if (outcome.lost) lost.push(outcome.lost);
    if (n > retry.maxRetries) {
      const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
      const message = `${outcome.what} after ${attempts}: ${outcome.detail}`;
      throw new ModelError(outcome.kind, message, outcome.status, lost);
    }
    const backoff = retry.baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2);
    await sleep(Math.min(outcome.retryAfterMs ?? backoff, retry.maxRetryAfterMs), signal);
  }
});
var withLost = (function withLost(e, lost) {
  if (!lost.length || !(e instanceof ModelError)) return e;
  return new ModelError(e.kind, e.message, e.status, [
    ...e.lost,
    ...lost
  ]);
});
var withoutTrailingSlashes = (function withoutTrailingSlashes(url) {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
});

// harness/trace.ts
var memorySink = (function memorySink() {
  const events = [];
  return {
    sink: (e) => void events.push(e),
    events
  };
});
var jsonlSink = (function jsonlSink(write) {
  return (event) => write(JSON.stringify(event) + "\n");
});
var fileSink = (function fileSink(path) {
  return jsonlSink((line) => Deno.writeTextFile(path, line, {
    append: true
  }));
});
var combineSinks = (function combineSinks(...sinks) {
  const list = sinks.filter((s) => !!s);
  return async (event) => {
    for (const s of list) await s(event);
  };
});

// harness/run_store.ts
var MemoryRunStore = class {
  #runs = /* @__PURE__ */ new Map();
  /** How many times `save` was called (for tests). */
  saves = 0;
  /** Stores a deep copy. */
  save(state) {
    this.saves++;
    this.#runs.set(state.runId, cloneData(state));
    return Promise.resolve();
  }
  /** Returns a deep copy. */
  load(runId) {
    const s = this.#runs.get(runId);
    if (!s) return Promise.reject(new RunNotFoundError(runId));
    return Promise.resolve(cloneData(s));
  }
  /** Every stored run. */
  list() {
    return [
      ...this.#runs.values()
    ].map((s) => cloneData(s));
  }
};

// subagents/agent_tool.ts
import { z as z6 } from "zod";
var question;
var questionSchema = () => question ??= z6.object({
  question: z6.string().min(1).describe("The question to research")
});
var active = /* @__PURE__ */ new Map();
function track(rootId, p) {
  let set = active.get(rootId);
  if (!set) active.set(rootId, set = /* @__PURE__ */ new Set());
  const settled = p.then(() => {
  }, () => {
  }).finally(() => {
    set.delete(settled);
    if (!set.size && active.get(rootId) === set) active.delete(rootId);
  });
  set.add(settled);
  return p;
}
async function treeSettled(rootId) {
  for (; ; ) {
    const sets = rootId === void 0 ? [
      ...active.values()
    ] : [
      active.get(rootId)
    ];
    const pending3 = sets.flatMap((s) => s ? [
      ...s
    ] : []);
    if (!pending3.length) return;
    await Promise.all(pending3);
  }
}
function childRunId(parentId, callId) {
  return `${parentId}.${callId}`;
}
function describeChildStop(name, child) {
  const partial = partialFinding(child);
  switch (child.status) {
    case "completed":
      if (child.output !== null && typeof child.output !== "string") {
        return JSON.stringify(child.output);
      }
      return child.output || `${name} finished without an answer.`;
    case "max_turns_exceeded":
      return `${name} stopped at its turn cap after ${child.turns} turns; partial finding: ${partial}`;
    case "budget_exceeded":
      return `${name} stopped at its budget after ${child.turns} turns ($${child.costUsd.toFixed(6)} spent); partial finding: ${partial}`;
    case "failed":
      return `${name} failed: ${child.stopReason ?? child.error ?? "unknown error"}`;
    default:
      return `${name} stopped (${child.status}): ${child.stopReason ?? "no reason given"}`;
  }
}
function partialFinding(child) {
  const last = child.messages.findLast((m) => m.role === "assistant" && m.content?.trim());
  return last?.content?.trim() || "none";
}
function agentTool(options) {
  const { name, description, system, tools, limits = {}, model, stopWhen, inheritStopWhen, agent } = options;
  if (!Array.isArray(tools)) throw new TypeError(`agentTool(${name}): tools must be an array`);
  if (typeof system !== "string") {
    throw new TypeError(`agentTool(${name}): system must be a string`);
  }
  const own = checkLimits(limits);
  const parameters = options.parameters ?? questionSchema();
  const task = options.task ?? ((args) => args.question);
  return defineTool({
    name,
    description,
    parameters,
    readOnly: true,
    run: (args, ctx) => runChild(args, ctx)
  });
  async function runChild(args, ctx) {
    const rootId = ctx.rootId ?? ctx.runId;
    const child = newRun(task(args), {
      system,
      runId: childRunId(ctx.runId, ctx.callId),
      parent: {
        runId: ctx.runId,
        rootId,
        callId: ctx.callId
      },
      limits: own,
      agent
    });
    const childOptions2 = {
      tools,
      limits: own,
      model,
      stopWhen,
      inheritStopWhen
    };
    const done = await track(rootId, ctx.runChild(child, childOptions2));
    const i = done.interruption;
    if (done.status === "interrupted" && i?.type === "approval") {
      const holder = i.runId ?? done.runId;
      const what = i.why === "needs_approval" ? "needs approval" : "has an uncertain effect";
      throw new SuspendRun({
        ...i,
        runId: holder
      }, `awaiting a verdict in child run "${holder}" (via ${name} call ${ctx.callId}): ${i.toolName} (${i.callId}) ${what}`);
    }
    if (done.status === "interrupted" && i?.type === "cancelled") {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw new SuspendRun(i, `child run "${done.runId}" was cancelled: ${i.reason}`);
    }
    return describeChildStop(name, done);
  }
}

// subagents/agent_options.ts
import { z as z7 } from "zod";
var POSITIVE = "expected a positive integer";
var BOOLEAN = "expected true or false";
var schema2;
function agentOptionsSchema() {
  return schema2 ??= z7.strictObject({
    budgetMode: z7.enum([
      "soft",
      "hard"
    ], {
      error: 'expected "soft" or "hard"'
    }).optional(),
    dedupe: z7.boolean({
      error: BOOLEAN
    }).optional(),
    toolErrors: z7.enum([
      "describe",
      "generic",
      "fatal"
    ], {
      error: 'expected "describe", "generic" or "fatal"'
    }).optional(),
    concurrency: z7.int({
      error: POSITIVE
    }).min(1, {
      error: POSITIVE
    }).optional(),
    stopOnPermanentError: z7.boolean({
      error: BOOLEAN
    }).optional(),
    context: contextSettingsSchema().optional().describe("Compact the prompt of a long run: old tool results elided, older turns summarized (the summary model by name)")
  });
}

// subagents/define_agent.ts
var AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
function checkOptions2(name, options) {
  if (options === void 0) return {};
  const issue = agentOptionsSchema().safeParse(options).error?.issues[0];
  if (!issue) return {
    ...options
  };
  const known = issue.code === "unrecognized_keys" ? ` (known: ${Object.keys(agentOptionsSchema().shape).join(", ")})` : "";
  throw new TypeError(`defineAgent(${name}): ${issueLine(issue, "options", options)}${known}`);
}
function checkUniqueToolNames(agent, names) {
  const seen = /* @__PURE__ */ new Set();
  for (const n of names) {
    if (seen.has(n)) {
      throw new TypeError(`defineAgent(${agent}): two tools are named "${n}"`);
    }
    seen.add(n);
  }
}
function checkSpec(spec) {
  if (!spec || typeof spec !== "object") {
    throw new TypeError("defineAgent(spec): spec must be an object");
  }
  if (typeof spec.name !== "string" || !AGENT_NAME.test(spec.name)) {
    throw new TypeError(`defineAgent: name must match ${AGENT_NAME} (URL-safe), got ${JSON.stringify(spec.name)}`);
  }
  const name = spec.name;
  if (typeof spec.instructions !== "string") {
    throw new TypeError(`defineAgent(${name}): instructions must be a string`);
  }
  if (spec.description !== void 0 && typeof spec.description !== "string") {
    throw new TypeError(`defineAgent(${name}): description must be a string`);
  }
  if (!Array.isArray(spec.tools) && typeof spec.tools !== "function") {
    throw new TypeError(`defineAgent(${name}): tools must be a list or a function of the tree`);
  }
  const model = spec.model;
  if (model !== void 0 && typeof model !== "string" && typeof model?.complete !== "function") {
    throw new TypeError(`defineAgent(${name}): model must be a Model or a model name`);
  }
  if (spec.agents !== void 0 && !Array.isArray(spec.agents)) {
    throw new TypeError(`defineAgent(${name}): agents must be a list of agents`);
  }
  for (const child of spec.agents ?? []) {
    if (!isAgent(child)) {
      throw new TypeError(`defineAgent(${name}): agents must be made by defineAgent`);
    }
  }
}
var AGENTS = /* @__PURE__ */ new WeakSet();
function isAgent(value) {
  return typeof value === "object" && value !== null && AGENTS.has(value);
}
function defineAgent(spec) {
  checkSpec(spec);
  const name = spec.name;
  const agents = Object.freeze([
    ...spec.agents ?? []
  ]);
  if (Array.isArray(spec.tools)) {
    checkUniqueToolNames(name, [
      ...spec.tools.map((t) => t.name),
      ...agents.map((a) => a.name)
    ]);
  } else checkUniqueToolNames(name, agents.map((a) => a.name));
  const limits = spec.limits === void 0 ? {} : checkPartialLimits(spec.limits);
  const agent = Object.freeze({
    name,
    description: spec.description ?? "",
    instructions: spec.instructions,
    ...spec.model === void 0 ? {} : {
      model: spec.model
    },
    tools: Array.isArray(spec.tools) ? Object.freeze([
      ...spec.tools
    ]) : spec.tools,
    agents,
    limits: Object.freeze(limits),
    ...spec.prices === void 0 ? {} : {
      prices: spec.prices
    },
    options: Object.freeze(checkOptions2(name, spec.options)),
    ...spec.output === void 0 ? {} : {
      output: spec.output
    }
  });
  AGENTS.add(agent);
  return agent;
}
function checkPartialLimits(limits) {
  const usd = limits.maxBudgetUsd;
  if (typeof usd === "number" && usd <= 0) {
    throw new RangeError(`limits.maxBudgetUsd: ${GIVEN_BUDGET}, got ${usd}`);
  }
  const full = checkLimits(limits);
  const out = {};
  if (limits.maxTurns !== void 0) out.maxTurns = full.maxTurns;
  if (limits.maxBudgetUsd !== void 0) out.maxBudgetUsd = full.maxBudgetUsd;
  return out;
}
async function agentTools(agent, ctx, resolveModel, everyModel) {
  const own = typeof agent.tools === "function" ? await agent.tools(ctx) : agent.tools;
  if (!Array.isArray(own)) {
    throw new TypeError(`agent ${agent.name}: its tools function must return a list of tools`);
  }
  const children = [];
  for (const child of agent.agents) {
    children.push(agentTool({
      name: child.name,
      description: child.description || `Delegates one question to the ${child.name} agent.`,
      system: child.instructions,
      tools: await agentTools(child, ctx, resolveModel, everyModel),
      limits: child.limits,
      model: everyModel ?? childModel(child, resolveModel),
      agent: child.name
    }));
  }
  const tools = [
    ...own,
    ...children
  ];
  checkUniqueToolNames(agent.name, tools.map((t) => t.name));
  return tools;
}
function childModel(child, resolveModel) {
  if (child.model === void 0 || typeof child.model !== "string") return child.model;
  if (!resolveModel) {
    throw new TypeError(`agent ${child.name}: model "${child.model}" needs the process's models`);
  }
  return resolveModel(child.model);
}

// subagents/agent_run_options.ts
function wideningOf(agent, asked) {
  if (asked.budgetMode === "soft" && agent.budgetMode === "hard") {
    return {
      field: "budgetMode",
      problem: "the agent's budget mode is hard; a request may not loosen it"
    };
  }
  const most = agent.concurrency ?? 4;
  if (asked.concurrency !== void 0 && asked.concurrency > most) {
    return {
      field: "concurrency",
      problem: `at most ${most} (the agent's, or the default)`
    };
  }
  if (asked.stopOnPermanentError === false && agent.stopOnPermanentError !== false) {
    return {
      field: "stopOnPermanentError",
      problem: "the agent stops on a permanent error; a request may not turn that off"
    };
  }
  const mode = agent.toolErrors ?? "describe";
  if (asked.toolErrors !== void 0 && TOOL_ERRORS[asked.toolErrors] > TOOL_ERRORS[mode]) {
    return {
      field: "toolErrors",
      problem: `the agent's tool errors are "${mode}"; a request may only ask for ${mode === "fatal" ? '"fatal"' : mode === "generic" ? '"generic" or "fatal"' : "any"}`
    };
  }
  return null;
}
var TOOL_ERRORS = {
  fatal: 0,
  generic: 1,
  describe: 2
};
function narrowRun(agent, request2, defaults) {
  const asked = request2.options ?? {};
  const fromDefaults = withinAgent(agent, Object.fromEntries(Object.entries(defaults.settings ?? {}).filter(([k]) => agent.options[k] === void 0)));
  const base = {
    ...fromDefaults,
    ...given(agent.options)
  };
  const widened = wideningOf(base, asked) ?? modelChosen(agent, asked);
  if (widened) return {
    widened,
    in: "options"
  };
  const over = limitsWidening(agent, request2.limits ?? {}, defaults.limits);
  if (over) return {
    widened: over,
    in: "limits"
  };
  return {
    options: overlay(fromDefaults, asked),
    limits: {
      ...given(defaults.limits ?? {}),
      ...agent.limits,
      ...given(request2.limits ?? {})
    }
  };
}
function overlay(base, top) {
  const options = {
    ...base,
    ...given(top)
  };
  if (base.context && top.context) options.context = {
    ...base.context,
    ...given(top.context)
  };
  return options;
}
function withinAgent(agent, asked) {
  const kept = {};
  for (const [k, v] of Object.entries(given(asked))) {
    const one = {
      [k]: v
    };
    const own = agent.options[k] !== void 0;
    if (!own || wideningOf(agent.options, one) === null) Object.assign(kept, one);
  }
  if (kept.context && modelChosen(agent, kept)) {
    const { summaryModel: _, ...rest } = kept.context;
    kept.context = rest;
  }
  return kept;
}
function modelChosen(agent, asked) {
  const summaryModel = asked.context?.summaryModel;
  if (summaryModel === void 0) return null;
  const own = agent.options.context?.summaryModel;
  if (own === summaryModel || own === void 0 && agent.model === void 0) return null;
  return {
    field: "context.summaryModel",
    problem: own === void 0 ? `agent ${agent.name} has its own model; a request may not choose its summary model` : `agent ${agent.name}'s summaries are written by "${own}"; a request may not choose another`
  };
}
function given(o) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== void 0));
}
function limitCeiling(agent, defaults = {}) {
  return {
    ...DEFAULT_LIMITS,
    ...given(defaults),
    ...agent.limits
  };
}
function limitsWidening(agent, asked, defaults = {}) {
  const ceiling = limitCeiling(agent, defaults);
  for (const k of [
    "maxTurns",
    "maxBudgetUsd"
  ]) {
    const v = asked[k];
    if (v !== void 0 && v > ceiling[k]) {
      const whose = k in agent.limits ? `agent ${agent.name}'s limit` : defaults[k] !== void 0 ? "the configured default" : "the default";
      return {
        field: k,
        problem: `at most ${ceiling[k]} (${whose})`
      };
    }
  }
  return null;
}
async function agentRunOptions(agent, asked, setup) {
  const every = setup.modelForTree ? setup.model : void 0;
  const tools = await agentTools(agent, setup.context, setup.resolveModel, every);
  const options = overlay(agent.options, withinAgent(agent, asked));
  return {
    model: setup.model,
    tools: [
      ...tools,
      ...setup.extraTools ?? []
    ],
    budgetMode: options.budgetMode,
    dedupe: options.dedupe,
    toolErrors: options.toolErrors,
    concurrency: options.concurrency,
    stopOnPermanentError: options.stopOnPermanentError,
    prices: agent.prices ?? setup.prices,
    context: contextPolicyOf(options.context, setup.resolveModel),
    signal: setup.signal,
    trace: setup.trace,
    // A typed agent: its answer must pass the schema, on every resume too.
    ...agent.output === void 0 ? {} : {
      output: agent.output
    }
  };
}
function contextPolicyOf(context, resolveModel) {
  if (!context) return void 0;
  const { summaryModel, ...rest } = context;
  if (summaryModel === void 0) return rest;
  if (!resolveModel) {
    throw new TypeError(`context.summaryModel "${summaryModel}": no model factory to make it`);
  }
  return {
    ...rest,
    summaryModel: resolveModel(summaryModel)
  };
}

// subagents/run_agent.ts
async function runAgent(agent, task, options = {}) {
  if (!isAgent(agent)) {
    throw new TypeError("runAgent(agent, task): agent must be made by defineAgent");
  }
  const { model: given2, resolveModel, limits = {}, options: asked = {}, dir = "" } = options;
  try {
    checkLimits(limits);
  } catch (e) {
    throw named(agent.name, e);
  }
  const issue = agentOptionsSchema().safeParse(asked).error?.issues[0];
  if (issue) throw new TypeError(`runAgent(${agent.name}): ${issueLine(issue, "options", asked)}`);
  const narrowed = narrowRun(agent, {
    options: asked,
    limits
  }, {});
  if ("widened" in narrowed) {
    const { field, problem } = narrowed.widened;
    throw new RangeError(`runAgent(${agent.name}): ${field}: ${problem}`);
  }
  const model = given2 ?? modelOf(agent, resolveModel);
  const state = typeof task === "string" ? fresh(agent, task, model, narrowed.limits) : continued(agent, task);
  const runOptions = await agentRunOptions(agent, asked, {
    model,
    context: {
      rootId: state.rootId,
      dir
    },
    resolveModel,
    modelForTree: given2 !== void 0,
    prices: options.prices,
    signal: options.signal,
    trace: options.trace
  });
  const { store, observe, stopWhen } = options;
  const own = {
    store,
    observe,
    stopWhen,
    limits: typeof task === "string" ? void 0 : limits
  };
  return await run(state, {
    ...runOptions,
    ...own
  });
}
function fresh(agent, task, model, limits) {
  if (task.trim() === "") {
    throw new TypeError(`runAgent(${agent.name}): task must be a non-empty string or a run state`);
  }
  return newRun(task, {
    system: agent.instructions,
    agent: agent.name,
    model: model.name,
    limits
  });
}
function continued(agent, state) {
  if (typeof state !== "object" || state === null || typeof state.runId !== "string") {
    throw new TypeError(`runAgent(${agent.name}): task must be a non-empty string or a run state`);
  }
  if (state.agent !== agent.name) {
    const whose = state.agent === void 0 ? "of no agent" : `of agent "${state.agent}"`;
    throw new TypeError(`runAgent(${agent.name}): run "${state.runId}" is ${whose}`);
  }
  return state;
}
function named(name, e) {
  const message = `runAgent(${name}): ${e.message}`;
  if (e instanceof RangeError) return new RangeError(message, {
    cause: e
  });
  if (e instanceof TypeError) return new TypeError(message, {
    cause: e
  });
  return e;
}
function modelOf(agent, resolve) {
  if (typeof agent.model === "object") return agent.model;
  if (typeof agent.model === "string") {
    if (!resolve) {
      throw new TypeError(`runAgent(${agent.name}): its model is the name "${agent.model}": give resolveModel`);
    }
    return resolve(agent.model);
  }
  throw new TypeError(`runAgent(${agent.name}): the agent names no model: give runAgent's options.model, or defineAgent's model (runAgent reads no LLM_MODEL: that is the server's and the CLI's)`);
}

export {
  isDrivenByRun,
  objectError,
  issueLine,
  DEFAULT_LIMITS,
  GIVEN_BUDGET,
  runLimitsSchema,
  checkLimits,
  isoNow,
  RUN_STATUSES,
  RESUMABLE_STATUSES,
  RUN_SCHEMA_VERSION,
  newRun,
  pending,
  pricesSchema,
  priceTableSchema,
  pricesSchemaOf,
  checkPrices,
  pricesFor,
  roundUsd,
  isStepCount,
  isBudgetSpent,
  hasToolCall,
  followUpRefusal,
  followUp,
  defineTool,
  raceSignal,
  summarizedTurnsOf,
  loadTokenizer,
  tokenCount,
  truncateToTokens,
  countPromptTokens,
  countCompletionTokens,
  cutText,
  outputFormat,
  REPAIR_PREFIX,
  unjudgedAnswer,
  forkState,
  forkableTurns,
  quoteNextCall,
  newBudgetGate,
  planCall,
  saysContextLength,
  SUMMARY_PROMPT,
  run,
  approve,
  reject,
  attemptText,
  createOpenAIModel,
  memorySink,
  jsonlSink,
  fileSink,
  combineSinks,
  MemoryRunStore,
  treeSettled,
  childRunId,
  agentTool,
  agentOptionsSchema,
  isAgent,
  defineAgent,
  agentTools,
  narrowRun,
  limitCeiling,
  limitsWidening,
  agentRunOptions,
  runAgent
};
