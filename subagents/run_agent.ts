/**
 * Running an agent in your own process: what a server does for a stored run
 * (its instructions as the system message, its tools and child agents, its
 * limits, options, prices, context policy and typed output), as one call.
 *
 * @module
 */
import { checkLimits, type LimitsInput } from "../harness/limits.ts";
import type { Model } from "../harness/model.ts";
import type { Prices, PriceTable } from "../harness/cost.ts";
import type { RunOptions } from "../harness/run_options.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { run, type RunResult } from "../harness/run.ts";
import { type Agent, isAgent, type ResolveModel } from "./define_agent.ts";
import { type AgentOptions, agentOptionsSchema } from "./agent_options.ts";
import { issueLine } from "../harness/schema_issue.ts";
import { agentRunOptions, narrowRun } from "./agent_run_options.ts";

/** Options of {@link runAgent}: what the process adds to the agent's definition. */
export interface RunAgentOptions
  extends Pick<RunOptions, "signal" | "trace" | "store" | "observe" | "stopWhen"> {
  /**
   * The model every agent of the tree runs on, their own included: a test's
   * scripted model never leaves a real one called. Without it, each agent's own
   * (`resolveModel` makes it from a name); runAgent reads no environment.
   */
  model?: Model | undefined;
  /** Makes a model from a name: an agent's, a summary model's. */
  resolveModel?: ResolveModel | undefined;
  /** Lower limits than the agent's (a higher one is a `RangeError`). */
  limits?: LimitsInput | undefined;
  /** Narrower options than the agent's (a hard budget mode, ...; a wider one is a `RangeError`). */
  options?: AgentOptions | undefined;
  /** Prices of the process's model (the agent's own win). */
  prices?: Prices | PriceTable | undefined;
  /** The tree's folder, for an agent whose `tools` is a function of the tree (default: none, ""). */
  dir?: string | undefined;
}

/**
 * Runs `agent` on `task` in this process and returns the final state, as
 * `run()` does (it never throws for a model or tool failure). Its child
 * agents run as its tools, under its budget and signal. Given a state of one
 * of its runs instead of a task (after `approve()`, `reject()`, or to resume
 * after a cap), it continues that run. For runs that survive a crash and are
 * served over HTTP, see `serve({ agents })`.
 *
 * @example
 * ```ts
 * import { defineAgent } from "./define_agent.ts";
 * import { runAgent } from "./run_agent.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * const greeter = defineAgent({ name: "greeter", instructions: "Be brief.", tools: [] });
 * const done = await runAgent(greeter, "Hello?", { model: scriptedModel("echo") });
 * console.log(done.status, done.agent, done.messages[0].role); // completed greeter system
 * ```
 */
export async function runAgent<T>(
  agent: Agent<T>,
  task: string | RunState,
  options: RunAgentOptions = {},
): Promise<RunResult<T>> {
  if (!isAgent(agent)) {
    throw new TypeError("runAgent(agent, task): agent must be made by defineAgent");
  }
  const { model: given, resolveModel, limits = {}, options: asked = {}, dir = "" } = options;
  try {
    checkLimits(limits); // a bad value is a RangeError, a field that is no limit a TypeError
  } catch (e) {
    throw named(agent.name, e);
  }
  const issue = agentOptionsSchema().safeParse(asked).error?.issues[0];
  if (issue) throw new TypeError(`runAgent(${agent.name}): ${issueLine(issue, "options", asked)}`);
  const narrowed = narrowRun(agent, { options: asked, limits }, {});
  if ("widened" in narrowed) {
    const { field, problem } = narrowed.widened;
    throw new RangeError(`runAgent(${agent.name}): ${field}: ${problem}`);
  }
  const model = given ?? modelOf(agent, resolveModel);
  const state = typeof task === "string"
    ? fresh(agent, task, model, narrowed.limits)
    : continued(agent, task);
  const runOptions = await agentRunOptions(agent, asked, {
    model,
    context: { rootId: state.rootId, dir },
    resolveModel,
    modelForTree: given !== undefined,
    prices: options.prices,
    signal: options.signal,
    trace: options.trace,
  });
  const { store, observe, stopWhen } = options;
  // A continued run takes the new limits over its own (checked above to narrow the agent's).
  const own = { store, observe, stopWhen, limits: typeof task === "string" ? undefined : limits };
  // The agent's `output` checked its answer: `output` is a T (its text for an untyped one).
  return await run(state, { ...runOptions, ...own }) as RunResult<T>;
}

/** A new run of `agent` on `task`. */
function fresh(agent: Agent, task: string, model: Model, limits: LimitsInput): RunState {
  if (task.trim() === "") {
    throw new TypeError(`runAgent(${agent.name}): task must be a non-empty string or a run state`);
  }
  return newRun(task, { system: agent.instructions, agent: agent.name, model: model.name, limits });
}

/** A run of `agent` to continue (after a verdict, or to resume after a cap). */
function continued(agent: Agent, state: RunState): RunState {
  if (typeof state !== "object" || state === null || typeof state.runId !== "string") {
    throw new TypeError(`runAgent(${agent.name}): task must be a non-empty string or a run state`);
  }
  if (state.agent !== agent.name) {
    const whose = state.agent === undefined ? "of no agent" : `of agent "${state.agent}"`;
    throw new TypeError(`runAgent(${agent.name}): run "${state.runId}" is ${whose}`);
  }
  return state;
}

/** `e` (a TypeError or RangeError of the arguments) with the call it came from named. */
function named(name: string, e: unknown): unknown {
  const message = `runAgent(${name}): ${(e as Error).message}`;
  if (e instanceof RangeError) return new RangeError(message, { cause: e });
  if (e instanceof TypeError) return new TypeError(message, { cause: e });
  return e;
}

function modelOf(agent: Agent, resolve?: ResolveModel): Model {
  if (typeof agent.model === "object") return agent.model;
  if (typeof agent.model === "string") {
    if (!resolve) {
      throw new TypeError(
        `runAgent(${agent.name}): its model is the name "${agent.model}": give resolveModel`,
      );
    }
    return resolve(agent.model);
  }
  throw new TypeError(
    `runAgent(${agent.name}): the agent names no model: give runAgent's options.model, or ` +
      "defineAgent's model (runAgent reads no LLM_MODEL: that is the server's and the CLI's)",
  );
}
