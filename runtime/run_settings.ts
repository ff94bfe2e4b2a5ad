/**
 * What a stored run executes with: its agent's definition (instructions,
 * tools, model, options), narrowed by what the request that made it asked
 * for (a hard budget mode, lower concurrency, ...), and the stamp of the
 * agent it started under (name, fingerprint, tool parameter hashes), kept
 * beside the run so another process can tell whether it may resume it.
 *
 * @module
 */
import { z } from "zod";
import { type Prices, pricesSchema, type PriceTable, priceTableSchema } from "../harness/cost.ts";
import { DEFAULT_LIMITS, type RunLimits, runLimitsSchema } from "../harness/limits.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool, RunOptions } from "../harness/run_options.ts";
import type { TraceSink } from "../harness/trace.ts";
import type { ContextPolicy, ContextSettings } from "../harness/context_policy.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { RecordError } from "../kv/record_error.ts";
import {
  type Agent,
  type AgentContext,
  agentTools,
  type ResolveModel,
} from "../subagents/define_agent.ts";
import { type AgentOptions, agentOptionsSchema } from "../subagents/agent_options.ts";
import type { ToolTable } from "../subagents/describe_agent.ts";

/** What a request may ask of a run besides its limits: only narrowing (an agent's options). */
export type RunSettings = AgentOptions;

/** The version of {@link StoredRunSettings}. */
export const RUN_SETTINGS_VERSION = 1;

/** What is stored beside a root run: its agent's stamp and the request's options. */
export interface StoredRunSettings {
  /** {@link RUN_SETTINGS_VERSION}. */
  $schemaVersion: typeof RUN_SETTINGS_VERSION;
  /** The agent's name. */
  agent: string;
  /** The fingerprint of the definition the run last executed under. */
  fingerprint: string;
  /** Its tools' parameter hashes by agent path. */
  tools: ToolTable;
  /** What the request asked for (already checked to narrow the agent's options). */
  options: RunSettings;
}

const storedSchema = z.strictObject({
  $schemaVersion: z.literal(RUN_SETTINGS_VERSION),
  agent: z.string(),
  fingerprint: z.string(),
  tools: z.record(z.string(), z.record(z.string(), z.string())),
  options: agentOptionsSchema(),
});

/** Settings written before agents: the options, research ones, prices and limits of a request. */
const legacySchema = agentOptionsSchema().extend({
  researchDepth: z.int().min(0).optional(),
  researchWrites: z.boolean().optional(),
  prices: z.union([pricesSchema(), priceTableSchema()]).optional(),
  limits: runLimitsSchema().partial().optional(),
});

/** Settings as stored: an agent's stamp, or (written before agents) options only. */
export type LoadedRunSettings = StoredRunSettings | { legacy: RunSettings };

/**
 * The settings stored for run `runId`, validated: null when none were
 * stored; `{ legacy }` for a record written before agents (its options kept;
 * research depth and writes are its agent's now, its prices the process's,
 * its limits the run's own).
 *
 * @throws {RecordError} naming the first invalid field.
 *
 * @example
 * ```ts
 * import { parseStoredSettings } from "./run_settings.ts";
 * console.log(parseStoredSettings("r1", { dedupe: true, researchDepth: 2 })); // { legacy: { dedupe: true } }
 * ```
 */
export function parseStoredSettings(runId: string, value: unknown): LoadedRunSettings | null {
  if (value === null || value === undefined) return null;
  const isStamp = typeof value === "object" && "$schemaVersion" in value;
  const result = (isStamp ? storedSchema : legacySchema).safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new RecordError(runId, ["settings", ...issue.path.map(String)].join("."), issue.message);
  }
  if ("$schemaVersion" in result.data) return result.data;
  const { budgetMode, dedupe, toolErrors, concurrency, stopOnPermanentError } = result.data;
  const legacy = { budgetMode, dedupe, toolErrors, concurrency, stopOnPermanentError };
  return { legacy: JSON.parse(JSON.stringify(legacy)) };
}

/**
 * The settings stored beside run `id` ({@link parseStoredSettings}).
 *
 * @example
 * ```ts
 * import { loadRunSettings } from "./run_settings.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await loadRunSettings(new KvRunStore(kv), "nope")); // null
 * kv.close();
 * ```
 */
export async function loadRunSettings(
  store: KvRunStore,
  id: string,
): Promise<LoadedRunSettings | null> {
  return parseStoredSettings(id, await store.settings(id));
}

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
 * import { wideningOf } from "./run_settings.ts";
 * console.log(wideningOf({ budgetMode: "hard" }, { budgetMode: "soft" })?.problem);
 * // the agent's budget mode is hard; a request may not loosen it
 * ```
 */
export function wideningOf(agent: AgentOptions, asked: RunSettings): Widening | null {
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
 * import { limitCeiling } from "./run_settings.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
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
 * import { limitsWidening } from "./run_settings.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
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
  resolveModel?: ResolveModel;
  /** Prices of the process (the agent's own win). */
  prices?: Prices | PriceTable;
  /** Aborts the run (Ctrl-C, server shutdown). */
  signal?: AbortSignal;
  /** Where trace events go (besides the store's own log). */
  trace?: TraceSink;
  /** Tools the process adds to the root run (MCP servers of `reins.jsonc`). */
  extraTools?: readonly AnyTool[];
  /** Makes a model by name (for a context policy's `summaryModel`). */
  makeModel?: (name: string) => Model;
}

/**
 * The `run()` options of a run of `agent`: its tools in the tree (its own,
 * one per child agent, then the process's), its options narrowed by `asked`,
 * its prices over the process's. Limits stay the stored run's.
 *
 * @example
 * ```ts
 * import { agentRunOptions } from "./run_settings.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
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
  asked: RunSettings,
  setup: RunSetup,
): Promise<RunOptions> {
  const tools = await agentTools(agent, setup.context, setup.resolveModel);
  const options = { ...agent.options, ...asked };
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
