import {
  agentTools
} from "./chunk-harness_exit.js";
import {
  DEFAULT_LIMITS
} from "./chunk-harness_limits.js";

// harness/trace.ts
function memorySink() {
  const events = [];
  return {
    sink: (e) => void events.push(e),
    events
  };
}
function jsonlSink(write) {
  return (event) => write(JSON.stringify(event) + "\n");
}
function fileSink(path) {
  return jsonlSink((line) => Deno.writeTextFile(path, line, {
    append: true
  }));
}
function combineSinks(...sinks) {
  const list = sinks.filter((s) => !!s);
  return async (event) => {
    for (const s of list) await s(event);
  };
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
      problem: `at most ${most} (the agent's)`
    };
  }
  if (asked.stopOnPermanentError === false && agent.stopOnPermanentError !== false) {
    return {
      field: "stopOnPermanentError",
      problem: "the agent stops on a permanent error; a request may not turn that off"
    };
  }
  return null;
}
function limitCeiling(agent) {
  return {
    ...DEFAULT_LIMITS,
    ...agent.limits
  };
}
function limitsWidening(agent, asked) {
  const ceiling = limitCeiling(agent);
  for (const k of [
    "maxTurns",
    "maxBudgetUsd"
  ]) {
    const v = asked[k];
    if (v !== void 0 && v > ceiling[k]) {
      return {
        field: k,
        problem: `at most ${ceiling[k]} (agent ${agent.name}'s limit)`
      };
    }
  }
  return null;
}
async function agentRunOptions(agent, asked, setup) {
  const every = setup.modelForTree ? setup.model : void 0;
  const tools = await agentTools(agent, setup.context, setup.resolveModel, every);
  const options = askedOver(agent.options, asked);
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
function askedOver(agent, asked) {
  const given = Object.entries(asked).filter(([, v]) => v !== void 0);
  return {
    ...agent,
    ...Object.fromEntries(given)
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
  wideningOf,
  limitCeiling,
  limitsWidening,
  agentRunOptions
};
