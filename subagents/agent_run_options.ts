/**
 * A run of an agent, set up: the `run()` options its definition gives (its
 * tools in the tree, its options, prices, context policy, typed output),
 * and what a caller may ask of it: only narrowing (lower limits, a hard
 * budget mode, ...), never widening. Shared by the runtime (stored runs, the
 * server, the CLI) and {@link runAgent}'s runs in your own process.
 *
 * @module
 */
import { DEFAULT_LIMITS, type LimitsInput, type RunLimits } from "../harness/limits.ts";
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
    return { field: "concurrency", problem: `at most ${most} (the agent's, or the default)` };
  }
  if (asked.stopOnPermanentError === false && agent.stopOnPermanentError !== false) {
    return {
      field: "stopOnPermanentError",
      problem: "the agent stops on a permanent error; a request may not turn that off",
    };
  }
  const mode = agent.toolErrors ?? "describe";
  if (asked.toolErrors !== undefined && TOOL_ERRORS[asked.toolErrors] > TOOL_ERRORS[mode]) {
    return {
      field: "toolErrors",
      problem: `the agent's tool errors are "${mode}"; a request may only ask for ${
        mode === "fatal" ? '"fatal"' : mode === "generic" ? '"generic" or "fatal"' : "any"
      }`,
    };
  }
  return null;
}

/**
 * Tool error modes from the strictest: `fatal` ends the run, `generic` hides
 * the error's words from the model, `describe` shows them.
 */
const TOOL_ERRORS = { fatal: 0, generic: 1, describe: 2 } as const;

/** What a run of an agent starts with unless its agent or request says otherwise (`reins.jsonc`). */
export interface RunDefaults {
  /** Options of each new run where its agent sets none (a request may narrow them). */
  settings?: AgentOptions | undefined;
  /** Limits of each new run where its agent sets none (a request may lower them). */
  limits?: LimitsInput | undefined;
}

/** What a request asks of a new run of an agent. */
export interface RunRequest {
  /** Options, which may only narrow the agent's. */
  options?: AgentOptions | undefined;
  /** Limits, at most the agent's ceiling ({@link limitCeiling}). */
  limits?: LimitsInput | undefined;
}

/** A new run's options and limits, or what the request asked to widen. */
export type NarrowedRun =
  | { options: AgentOptions; limits: Partial<RunLimits> }
  | { widened: Widening; in: "options" | "limits" };

/**
 * The options and limits of a new run of `agent`: the process's defaults
 * where the agent sets nothing, the agent's own, then the request's, which
 * may only narrow them. One rule for the server, the CLI and `runAgent`.
 *
 * @example
 * ```ts
 * import { narrowRun } from "./agent_run_options.ts";
 * import { defineAgent } from "./define_agent.ts";
 * const a = defineAgent({
 *   name: "a", instructions: "", tools: [], limits: { maxTurns: 5 }, options: { budgetMode: "hard" },
 * });
 * console.log(narrowRun(a, { limits: { maxTurns: 3 } }, { settings: { dedupe: true } }));
 * // { options: { dedupe: true }, limits: { maxTurns: 3 } }
 * const refused = narrowRun(a, { options: { budgetMode: "soft" } }, {});
 * console.log("widened" in refused && refused.widened.field); // budgetMode
 * ```
 */
export function narrowRun(agent: Agent, request: RunRequest, defaults: RunDefaults): NarrowedRun {
  const asked = request.options ?? {};
  // The defaults only where the agent sets nothing of its own (a configured concurrency of 8
  // stands for an agent that sets none), and no summary model for an agent naming its model:
  // what is stored is what runs (withinAgent drops that at every execution).
  const fromDefaults = withinAgent(
    agent,
    Object.fromEntries(
      Object.entries(defaults.settings ?? {}).filter(([k]) =>
        agent.options[k as keyof AgentOptions] === undefined
      ),
    ),
  );
  // A request narrows what the run would have: the agent's options over those defaults.
  const base = { ...fromDefaults, ...given(agent.options) };
  const widened = wideningOf(base, asked) ?? modelChosen(agent, asked);
  if (widened) return { widened, in: "options" };
  const over = limitsWidening(agent, request.limits ?? {}, defaults.limits);
  if (over) return { widened: over, in: "limits" };
  return {
    options: overlay(fromDefaults, asked),
    limits: { ...given(defaults.limits ?? {}), ...agent.limits, ...given(request.limits ?? {}) },
  };
}

/** `top` over `base`: its fields not given kept from `base`, the context field by field. */
function overlay(base: AgentOptions, top: AgentOptions): AgentOptions {
  const options: AgentOptions = { ...base, ...given(top) };
  if (base.context && top.context) options.context = { ...base.context, ...given(top.context) };
  return options;
}

/**
 * What of `asked` (a stored run's settings) still narrows `agent` as it is
 * defined now: a field that widens what the agent sets (a definition
 * deployed since: a hard budget, stricter tool errors, its own summary
 * model) is dropped, so a stored run never runs wider than its agent. A
 * field the agent leaves unset is kept: it narrowed the built-in default
 * when it was asked, or is the process's configured default.
 */
function withinAgent(agent: Agent, asked: AgentOptions): AgentOptions {
  const kept: AgentOptions = {};
  for (const [k, v] of Object.entries(given(asked))) {
    const one = { [k]: v } as AgentOptions;
    const own = agent.options[k as keyof AgentOptions] !== undefined;
    if (!own || wideningOf(agent.options, one) === null) Object.assign(kept, one);
  }
  if (kept.context && modelChosen(agent, kept)) {
    const { summaryModel: _, ...rest } = kept.context;
    kept.context = rest;
  }
  return kept;
}

/**
 * A summary model asked for an agent that names its models (its own, or its
 * summaries'): which model runs is the agent's, as a request's `model` is
 * refused for it.
 */
function modelChosen(agent: Agent, asked: AgentOptions): Widening | null {
  const summaryModel = asked.context?.summaryModel;
  if (summaryModel === undefined) return null;
  const own = agent.options.context?.summaryModel;
  if (own === summaryModel || (own === undefined && agent.model === undefined)) return null;
  return {
    field: "context.summaryModel",
    problem: own === undefined
      ? `agent ${agent.name} has its own model; a request may not choose its summary model`
      : `agent ${agent.name}'s summaries are written by "${own}"; a request may not choose another`,
  };
}

/** `o` without its fields set to undefined (an undefined field is not given). */
function given<T extends object>(o: T): Given<T> {
  // Sound: the entries are `o`'s own, each with a value of its field's type (not undefined).
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Given<T>;
}

/** `T`'s fields, each optional and never `undefined`. */
type Given<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/**
 * The highest limits a run of `agent` may have: its own, over the process's
 * defaults (`reins.jsonc`), over the built-in ones.
 *
 * @example
 * ```ts
 * import { limitCeiling } from "./agent_run_options.ts";
 * import { defineAgent } from "./define_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [], limits: { maxTurns: 5 } });
 * console.log(limitCeiling(a)); // { maxTurns: 5, maxBudgetUsd: 1 }
 * console.log(limitCeiling(a, { maxBudgetUsd: 3 })); // { maxTurns: 5, maxBudgetUsd: 3 }
 * ```
 */
export function limitCeiling(agent: Agent, defaults: LimitsInput = {}): RunLimits {
  return { ...DEFAULT_LIMITS, ...given(defaults), ...agent.limits };
}

/**
 * Which limit of `asked` exceeds the ceiling of `agent`'s limits (over the
 * process's `defaults`), or null.
 *
 * @example
 * ```ts
 * import { limitsWidening } from "./agent_run_options.ts";
 * import { defineAgent } from "./define_agent.ts";
 * const a = defineAgent({ name: "a", instructions: "", tools: [], limits: { maxTurns: 5 } });
 * console.log(limitsWidening(a, { maxTurns: 9 })?.problem); // at most 5 (agent a's limit)
 * ```
 */
export function limitsWidening(
  agent: Agent,
  asked: LimitsInput,
  defaults: LimitsInput = {},
): Widening | null {
  const ceiling = limitCeiling(agent, defaults);
  for (const k of ["maxTurns", "maxBudgetUsd"] as const) {
    const v = asked[k];
    if (v !== undefined && v > ceiling[k]) {
      const whose = k in agent.limits
        ? `agent ${agent.name}'s limit`
        : defaults[k] !== undefined
        ? "the configured default"
        : "the default";
      return { field: k, problem: `at most ${ceiling[k]} (${whose})` };
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
  const options = overlay(agent.options, withinAgent(agent, asked));
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
