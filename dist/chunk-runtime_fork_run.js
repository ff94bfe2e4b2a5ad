import {
  loadRunSettings,
  modelOf
} from "./chunk-runtime_execute_run.js";
import {
  agentRunOptions,
  forkState,
  newBudgetGate,
  planCall,
  pricesFor,
  quoteNextCall,
  roundUsd
} from "./chunk-harness_limits.js";
import {
  RunStateError
} from "./chunk-harness_errors.js";

// runtime/fork_run.ts
import { join } from "node:path";
var FORK_NOT_STARTED = "created by a fork and not started: resume it to start";
async function forkRun(store, id, options) {
  const { runWith, start = true, quoteOnly = false, ...fork } = options;
  const state = forkState(await store.read(id), fork);
  const run = await runWith(state);
  const quote = await quoteNextCall(state, run);
  if (run.budgetMode === "hard") coveredByBudget(state, quote, run);
  if (quoteOnly) return {
    state,
    quote
  };
  if (!start) {
    state.status = "interrupted";
    state.interruption = {
      type: "cancelled",
      reason: FORK_NOT_STARTED
    };
    state.stopReason = FORK_NOT_STARTED;
  }
  const settings = await store.settings(id);
  await store.save(state, settings === null ? {} : {
    settings
  });
  return {
    state,
    quote
  };
}
function coveredByBudget(state, quote, run) {
  const prices = pricesFor(run.prices ?? run.model.prices, run.model.name);
  const plan = planCall({
    gate: newBudgetGate(),
    hard: true,
    ownUsd: () => roundUsd(state.limits.maxBudgetUsd - state.costUsd),
    ancestorsUsd: () => void 0,
    promptUsd: () => quote.promptUsd,
    outputPerMillion: prices.outputPerMillion,
    maxOutputTokens: prices.maxOutputTokens,
    minReplyTokens: run.minReplyTokens
  });
  if (plan.type === "call") return;
  throw new RangeError(`limits.maxBudgetUsd: the fork's next call cannot be made under its hard budget ($${state.limits.maxBudgetUsd.toFixed(6)}): ${plan.reason}`);
}
async function forkRunOptions(deps, store, source) {
  const agent = deps.agents.forRun(source);
  if (!agent) {
    const name = source.agent ?? "(none)";
    throw new RunStateError(source.runId, source.status, "fork", `its agent "${name}" is not served here`);
  }
  const stored = await loadRunSettings(store, source.runId);
  const options = stored === null ? {} : "fingerprint" in stored ? stored.options : stored.legacy;
  return await agentRunOptions(agent, options, {
    model: modelOf(agent, source, deps),
    context: {
      rootId: source.rootId,
      dir: join(deps.workspaceRoot, source.rootId)
    },
    resolveModel: deps.makeModel,
    prices: deps.prices,
    extraTools: deps.agents.extraTools
  });
}

export {
  FORK_NOT_STARTED,
  forkRun,
  forkRunOptions
};
