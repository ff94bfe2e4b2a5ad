/**
 * A run of an agent, set up: the `run()` options its definition gives (its
 * tools in the tree, its options, prices, context policy, typed output),
 * and what a caller may ask of it: only narrowing (lower limits, a hard
 * budget mode, ...), never widening. Shared by the runtime (stored runs, the
 * server, the CLI) and {@link runAgent}'s runs in your own process.
 *
 * @module
 */
import { DEFAULT_LIMITS, type RunLimits } from "../harness/limits.ts";
import type { Model } from "../harness/model.ts";
import type { Prices, PriceTable } from "../harness/cost.ts";
import type { AnyTool, RunOptions } from "../harness/run_options.ts";
import type { TraceSink } from "../harness/trace.ts";
import type { ContextPolicy, ContextSettings } from "../harness/context_policy.ts";
import { type Agent, type AgentContext, agentTools, type ResolveModel } from "./define_agent.ts";
import type { AgentOptions } from "./agent_options.ts";

/** A field a request asked to widen, and why it may not. */
export interface Widening {
  /** The field (`budgetMode`, `maxTurns`, ...). */
  field: string;
  /** What the agent allows. */
  problem: string;
}

/**
 * Which field of `asked` would widen `agent`'s options, or null.
 *
 * @example
 * ```ts
 * import { wideningOf } from "./agent_run_options.ts";
 * console.log(wideningOf({ budgetMode: "hard" }, { budgetMode: "soft" })?.problem);
 * // the agent's budget mode is hard; a request may not loosen it
 * ```
 */
export function wideningOf(agent: AgentOptions, asked: AgentOptions): Widening | null {
  if (asked.budgetMode === "soft" && agent.budgetMode === "hard") {
    return {
      field: "budgetMode",
      problem: "the agent's budget mode is hard; a request may not loosen it",
    };
  }
  const most = agent.concurrency ?? 4;
  if (asked.concurrency !== undefined && asked.concurrency > most) {
    return { field: "concurrency", problem: `at most ${most} (the agent's)` };
  }
  if (asked.stopOnPermanentError === false && agent.stopOnPermanentError !== false) {
    return {
      field: "stopOnPermanentError",
      problem: "the agent stops on a permanent error; a request may not turn that off",
    };
  }
  return null;
}

/**
 * The highest limits a run of `agent` may have: its own over the defaults.
 *
 * @example
 * ```ts
 * import { limitCeiling } from "./agent_run_options.ts";
 * import { defineAgent } from "./define_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [], limits: { maxTurns: 5 } });
 * console.log(limitCeiling(a)); // { maxTurns: 5, maxBudgetUsd: 1 }
 * ```
 */
export function limitCeiling(agent: Agent): RunLimits {
  return { ...DEFAULT_LIMITS, ...agent.limits };
}

/**
 * Which limit of `asked` exceeds the ceiling of `agent`'s limits, or null.
 *
 * @example
 * ```ts
 * import { limitsWidening } from "./agent_run_options.ts";
 * import { defineAgent } from "./define_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [], limits: { maxTurns: 5 } });
 * console.log(limitsWidening(a, { maxTurns: 9 })?.problem); // at most 5 (agent a's limit)
 * ```
 */
export function limitsWidening(agent: Agent, asked: Partial<RunLimits>): Widening | null {
  const ceiling = limitCeiling(agent);
  for (const k of ["maxTurns", "maxBudgetUsd"] as const) {
    const v = asked[k];
    if (v !== undefined && v > ceiling[k]) {
      return { field: k, problem: `at most ${ceiling[k]} (agent ${agent.name}'s limit)` };
    }
  }
  return null;
}

/** What a run of an agent executes with besides the agent and its stored options. */
export interface RunSetup {
  /** The model. */
  model: Model;
  /** The tree's context (root id, folder) for the agent's `tools` function. */
  context: AgentContext;
  /** Resolves child agents' model names. */
  resolveModel?: ResolveModel | undefined;
  /** `model` runs every agent of the tree, their own ignored (`runAgent` given a model). */
  modelForTree?: boolean | undefined;
  /** Prices of the process (the agent's own win). */
  prices?: Prices | PriceTable | undefined;
  /** Aborts the run (Ctrl-C, server shutdown). */
  signal?: AbortSignal | undefined;
  /** Where trace events go (besides the store's own log). */
  trace?: TraceSink | undefined;
  /** Tools the process adds to the root run (MCP servers of `reins.jsonc`). */
  extraTools?: readonly AnyTool[] | undefined;
  /** Makes a model by name (for a context policy's `summaryModel`). */
  makeModel?: ((name: string) => Model) | undefined;
}

/**
 * The `run()` options of a run of `agent`: its tools in the tree (its own,
 * one per child agent, then the process's), its options narrowed by `asked`,
 * its prices over the process's. Limits stay the stored run's.
 *
 * @example
 * ```ts
 * import { agentRunOptions } from "./agent_run_options.ts";
 * import { defineAgent } from "./define_agent.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [], options: { dedupe: true } });
 * const o = await agentRunOptions(a, { budgetMode: "hard" }, {
 *   model: scriptedModel("echo"),
 *   context: { rootId: "r", dir: "/tmp/r" },
 * });
 * console.log(o.dedupe, o.budgetMode); // true hard
 * ```
 */
export async function agentRunOptions(
  agent: Agent,
  asked: AgentOptions,
  setup: RunSetup,
): Promise<RunOptions> {
  const every = setup.modelForTree ? setup.model : undefined;
  const tools = await agentTools(agent, setup.context, setup.resolveModel, every);
  const options = askedOver(agent.options, asked);
  return {
    model: setup.model,
    tools: [...tools, ...setup.extraTools ?? []],
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
    ...(agent.output === undefined ? {} : { output: agent.output }),
  };
}

/**
 * `asked` over the agent's options. A field asked as undefined is not asked:
 * a plain spread would let `{ budgetMode: undefined }` undo a hard budget,
 * which `wideningOf` (looking for "soft") would not see.
 */
function askedOver(agent: AgentOptions, asked: AgentOptions): AgentOptions {
  const given = Object.entries(asked).filter(([, v]) => v !== undefined);
  // Sound: the entries are `asked`'s own, each with a value of its field's type.
  return { ...agent, ...Object.fromEntries(given) as AgentOptions };
}

/** The context policy of settings (its summary model resolved by name), or undefined. */
function contextPolicyOf(
  context: ContextSettings | undefined,
  resolveModel: ResolveModel | undefined,
): ContextPolicy | undefined {
  if (!context) return undefined;
  const { summaryModel, ...rest } = context;
  if (summaryModel === undefined) return rest;
  if (!resolveModel) {
    throw new TypeError(`context.summaryModel "${summaryModel}": no model factory to make it`);
  }
  return { ...rest, summaryModel: resolveModel(summaryModel) };
}
