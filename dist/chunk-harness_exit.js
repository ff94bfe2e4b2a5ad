import {
  defineTool,
  describeIssues,
  toolDefinitions
} from "./chunk-harness_tool.js";
import {
  markDrivenByRun
} from "./chunk-harness_driven_states.js";
import {
  GIVEN_BUDGET,
  RESUMABLE_STATUSES,
  checkLimits,
  checkNonNegative,
  isoNow,
  newRun,
  pending
} from "./chunk-harness_limits.js";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  TranscriptScan,
  adaptOutput,
  addUsd,
  checkAnswer,
  checkPrices,
  checkValue,
  computeCost,
  contextView,
  elidable,
  emptyContext,
  forkContext,
  headLength,
  keptFrom,
  pricesFor,
  repairText,
  roundUsd,
  runUniqueIds,
  shownRange,
  summaryRequest,
  turnsBetween
} from "./chunk-harness_summary_prompt.js";
import {
  countCompletionTokens,
  countMessageTokens,
  countPromptTokens,
  countTokens,
  isContextLengthError,
  loadTokenizer,
  tokenCount,
  tokenizerLoaded,
  truncateToTokens
} from "./chunk-harness_tokens.js";
import {
  cutText
} from "./chunk-harness_text.js";
import {
  issueLine
} from "./chunk-harness_schema_issue.js";
import {
  PermanentToolError,
  RunNotFoundError,
  RunStateError,
  RunTooLargeError,
  SuspendRun
} from "./chunk-harness_errors.js";
import {
  messageOf
} from "./chunk-harness_message_of.js";

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
      if (typeof src === "function" || typeof src === "symbol" || typeof src === "bigint") {
        throw refused(w, `a ${typeof src}`);
      }
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
    const out = array ? new Array(src.length) : {};
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
      const keys = Object.keys(src);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        todo.push({
          src: src[key],
          into: out,
          key,
          within: at
        });
      }
    }
  }
  return root[""];
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

// harness/prompt_estimate.ts
var RATIO_MARGIN = 1.05;
var promptEstimate = (function promptEstimate(state, tokens) {
  const ratio = state.promptRatio ? Math.max(1, state.promptRatio) * RATIO_MARGIN : 1;
  return Math.ceil(tokens * ratio);
});

// harness/output_turn.ts
import { z } from "zod";
var FINAL_ANSWER_TOOL = "final_answer";
var ANSWER_ACCEPTED = "Accepted.";
var DEFAULT_OUTPUT_REPAIRS = 2;
var planOutput = (function planOutput(state, options) {
  const maxRepairs = options.maxOutputRepairs ?? DEFAULT_OUTPUT_REPAIRS;
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) {
    throw new RangeError(`maxOutputRepairs must be a non-negative integer, got ${maxRepairs}`);
  }
  const schema2 = options.output ?? storedSchema(state);
  if (schema2 === null) return null;
  const { check, format } = adaptOutput(schema2);
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
    return z.fromJSONSchema(state.outputSchema);
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
  const refused2 = await unaffordableRepair(ctx, answer.raw, text);
  if (refused2) return refused2;
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
var raceSignal = (async function raceSignal(value, signal) {
  let onAbort;
  const aborted = new Promise((_, reject2) => {
    onAbort = () => reject2(signal.reason);
    signal.addEventListener("abort", onAbort, {
      once: true
    });
  });
  try {
    return await Promise.race([
      value,
      aborted
    ]);
  } finally {
    signal.removeEventListener("abort", onAbort);
    aborted.catch(() => {
    });
  }
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
    const failure = `${r.signature}\0${outcome.error}`;
    const fail = (reason) => exit.failed(reason, outcome.error);
    if (outcome.permanent && strict) stop = fail(`${name} failed permanently: ${outcome.error}`);
    else if ((options.toolErrors ?? "describe") === "fatal") {
      stop = fail(`${name} failed (tool errors are fatal): ${outcome.error}`);
    } else if (strict && r.signature && session.lastFailure === failure) {
      stop = fail(`${name} failed the same way twice in a row: ${outcome.error}`);
    }
    session.lastFailure = failure;
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

// harness/lost_replies.ts
async function countLostReplies(ctx, lost, reportedPrompt, definitions, other) {
  if (!lost?.length) return;
  const { state, options } = ctx;
  let estimate = tokenCount(reportedPrompt) ?? (other ? other.promptTokens : ctx.lastPromptTokens);
  const promptOf = async (reply) => {
    const reported = tokenCount(reply.prompt_tokens);
    if (reported !== void 0) return reported;
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
var learnPromptRatio = (function learnPromptRatio(state, local, reported) {
  if (!local || typeof reported !== "number" || !Number.isFinite(reported) || reported <= 0) return;
  const seen = Math.round(reported / local * 1e4) / 1e4;
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
  let failure = null;
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
    enqueue(true).catch((e) => failure ??= e);
  };
  const checkpoint = async () => {
    clearTimer();
    try {
      await enqueue(false);
    } catch (e) {
      failure = null;
      throw e;
    }
    if (failure !== null) {
      const e = failure;
      failure = null;
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
import { z as z2 } from "zod";
var DEFAULT_WINDOW_TOKENS = 128e3;
var DEFAULT_TRIGGER_SHARE = 0.83;
var ELIDE_TARGET = 0.6;
var policySchema;
function contextPolicySchema() {
  return policySchema ??= z2.strictObject({
    windowTokens: z2.int().min(1).optional().describe("The model's context window in tokens (default: its prices' contextTokens, else 128,000)"),
    trigger: z2.union([
      z2.number().gt(0).max(1),
      z2.strictObject({
        tokens: z2.int().min(1)
      })
    ]).optional().describe("Compact over this share of the window (default 0.83), or { tokens }"),
    keepTurns: z2.int().min(1).optional().describe("Recent turns kept verbatim (default 4)"),
    strategies: z2.array(z2.enum([
      "elide",
      "summarize"
    ])).min(1).optional().describe("Cheapest first (default elide, then summarize)"),
    summaryMaxTokens: z2.int().min(1).optional().describe("Reply cap of a summary (default 1,024)")
  });
}
var settingsSchema;
function contextSettingsSchema() {
  return settingsSchema ??= contextPolicySchema().extend({
    summaryModel: z2.string().min(1).max(200).optional().describe("The model that writes summaries, by name (default: the run's model)")
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
  let shown = shownRange(messages, pre, from, cut);
  let req = summaryRequest(pre.summary, shown);
  if (countPromptTokens(req) > room) {
    shown = shownRange(messages, {
      ...pre,
      elidedTo: cut
    }, from, cut);
    req = summaryRequest(pre.summary, shown);
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

// subagents/agent_tool.ts
import { z as z3 } from "zod";
var question;
var questionSchema = () => question ??= z3.object({
  question: z3.string().min(1).describe("The question to research")
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
    const pending2 = sets.flatMap((s) => s ? [
      ...s
    ] : []);
    if (!pending2.length) return;
    await Promise.all(pending2);
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
import { z as z4 } from "zod";
var POSITIVE = "expected a positive integer";
var BOOLEAN = "expected true or false";
var schema;
function agentOptionsSchema() {
  return schema ??= z4.strictObject({
    budgetMode: z4.enum([
      "soft",
      "hard"
    ], {
      error: 'expected "soft" or "hard"'
    }).optional(),
    dedupe: z4.boolean({
      error: BOOLEAN
    }).optional(),
    toolErrors: z4.enum([
      "describe",
      "generic",
      "fatal"
    ], {
      error: 'expected "describe", "generic" or "fatal"'
    }).optional(),
    concurrency: z4.int({
      error: POSITIVE
    }).min(1, {
      error: POSITIVE
    }).optional(),
    stopOnPermanentError: z4.boolean({
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

export {
  isStepCount,
  isBudgetSpent,
  hasToolCall,
  cloneData,
  followUpRefusal,
  followUp,
  unjudgedAnswer,
  forkState,
  forkableTurns,
  quoteNextCall,
  newBudgetGate,
  planCall,
  run,
  approve,
  reject,
  treeSettled,
  childRunId,
  agentTool,
  agentOptionsSchema,
  isAgent,
  defineAgent,
  agentTools
};
