// @ts-self-types="../mod.ts"
import {
  agentRunOptions,
  fileSink,
  jsonlSink,
  memorySink,
  narrowRun
} from "./chunk-harness_trace.js";
import {
  agentOptionsSchema,
  approve,
  cloneData,
  defineAgent,
  followUp,
  hasToolCall,
  isAgent,
  isBudgetSpent,
  isStepCount,
  reject,
  run
} from "./chunk-harness_exit.js";
import {
  defineTool
} from "./chunk-harness_tool.js";
import "./chunk-harness_driven_states.js";
import {
  DEFAULT_LIMITS,
  checkLimits,
  newRun
} from "./chunk-harness_limits.js";
import {
  createOpenAIModel
} from "./chunk-openai_provider_name.js";
import "./chunk-harness_text_attempts.js";
import {
  SUMMARY_PROMPT
} from "./chunk-harness_summary_prompt.js";
import "./chunk-harness_schema_adapter.js";
import "./chunk-harness_tokens.js";
import "./chunk-harness_text.js";
import {
  issueLine
} from "./chunk-harness_schema_issue.js";
import "./chunk-harness_is_object.js";
import {
  ModelError,
  PermanentToolError,
  ReinsError,
  RunNotFoundError,
  RunStateError
} from "./chunk-harness_errors.js";
import "./chunk-harness_message_of.js";
import "./chunk-__template.js";

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

// subagents/run_agent.ts
async function runAgent(agent, task, options = {}) {
  if (!isAgent(agent)) {
    throw new TypeError("runAgent(agent, task): agent must be made by defineAgent");
  }
  const { model: given, resolveModel, limits = {}, options: asked = {}, dir = "" } = options;
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
  const model = given ?? modelOf(agent, resolveModel);
  const state = typeof task === "string" ? fresh(agent, task, model, narrowed.limits) : continued(agent, task);
  const runOptions = await agentRunOptions(agent, asked, {
    model,
    context: {
      rootId: state.rootId,
      dir
    },
    resolveModel,
    modelForTree: given !== void 0,
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
  DEFAULT_LIMITS,
  MemoryRunStore,
  ModelError,
  PermanentToolError,
  ReinsError,
  RunStateError,
  SUMMARY_PROMPT,
  approve,
  createOpenAIModel,
  defineAgent,
  defineTool,
  fileSink,
  followUp,
  hasToolCall,
  isBudgetSpent,
  isStepCount,
  jsonlSink,
  memorySink,
  newRun,
  reject,
  run,
  runAgent
};
