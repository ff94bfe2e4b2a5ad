import {
  agentTools
} from "./chunk-harness_exit.js";
import {
  DEFAULT_LIMITS
} from "./chunk-harness_limits.js";

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
function narrowRun(agent, request, defaults) {
  const asked = request.options ?? {};
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
  const over = limitsWidening(agent, request.limits ?? {}, defaults.limits);
  if (over) return {
    widened: over,
    in: "limits"
  };
  return {
    options: overlay(fromDefaults, asked),
    limits: {
      ...given(defaults.limits ?? {}),
      ...agent.limits,
      ...given(request.limits ?? {})
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

export {
  memorySink,
  jsonlSink,
  fileSink,
  combineSinks,
  narrowRun,
  limitCeiling,
  limitsWidening,
  agentRunOptions
};
