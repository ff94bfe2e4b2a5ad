/**
 * The run options of a stored run, built one way from what a person asked
 * for: the CLI's flags and config file, or the options of an HTTP request
 * (stored with the run, used again on every resume). The tools are the demo
 * tools over the run's workspace, plus `research` subagents.
 *
 * @module
 */
import { z } from "zod";
import { type Prices, PricesSchema, type PriceTable, PriceTableSchema } from "../harness/cost.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool, RunOptions } from "../harness/run_options.ts";
import {
  type ContextPolicy,
  ContextPolicySchema,
  type ContextStrategy,
} from "../harness/context_policy.ts";
import { type RunLimits, RunLimitsSchema } from "../harness/limits.ts";
import type { TraceSink } from "../harness/trace.ts";
import { researchTool } from "../subagents/research.ts";
import { scenarioSpec } from "../testing/scenario_catalog.ts";
import { scriptedScenario } from "../testing/scripted_model.ts";
import { demoTools } from "../tools/catalog.ts";
import { RecordError } from "../kv/record_error.ts";
import type { ScanArchiveOptions } from "../tools/scan_archive.ts";
import type { Workspace } from "../tools/workspace.ts";

/** A context policy as plain data (the CLI, the config file, the HTTP API). */
const ContextSettingsSchema = ContextPolicySchema.extend({
  summaryModel: z.string().min(1).max(200).optional().describe(
    "The model that writes summaries, by name (default: the run's model)",
  ),
});

/** A {@link ContextPolicy} as plain data: the summary model by name (see `ContextPolicy`). */
export interface ContextSettings {
  /** The model's context window in tokens. */
  windowTokens?: number;
  /** A share of the window in (0, 1], or a token count. */
  trigger?: number | { tokens: number };
  /** Most recent turns kept verbatim. */
  keepTurns?: number;
  /** Strategies, cheapest first. */
  strategies?: ContextStrategy[];
  /** Reply cap of a summary, in tokens. */
  summaryMaxTokens?: number;
  /** The model that writes summaries, by name (default: the run's model). */
  summaryModel?: string;
}

/** What a person may choose about a run (every field optional: absent means the default). */
export interface RunSettings {
  /** `soft` (default): check before each call; `hard`: also cap `max_tokens`. */
  budgetMode?: "soft" | "hard";
  /** Serve repeated identical read-only tool calls from cache. */
  dedupe?: boolean;
  /** How tool errors reach the model. */
  toolErrors?: "describe" | "generic" | "fatal";
  /** Tool calls of one turn run at most this many at once. */
  concurrency?: number;
  /** A permanent tool error fails the run. */
  stopOnPermanentError?: boolean;
  /** Levels of `research` subagents below the run (0: no research tool; default 1). */
  researchDepth?: number;
  /** Give `research` subagents every demo tool (delete_file included) instead of the read-only ones. */
  researchWrites?: boolean;
  /** Prices of the model's tokens. */
  prices?: Prices | PriceTable;
  /** Limits applied on top of the stored ones when the run (re)starts. */
  limits?: Partial<RunLimits>;
  /** Compact the prompt of a long run (see `ContextPolicy`). Default: off. */
  context?: ContextSettings;
}

/**
 * The one schema of {@link RunSettings}: the HTTP API's run options and the
 * config file's defaults are parts of it, and stored settings are validated
 * with it when a run is executed.
 *
 * @example
 * ```ts
 * import { RunSettingsSchema } from "./run_settings.ts";
 * console.log(RunSettingsSchema.safeParse({ budgetMode: "hard", limits: { maxTurns: 5 } }).success); // true
 * ```
 */
export const RunSettingsSchema = z.strictObject({
  budgetMode: z.enum(["soft", "hard"], { error: 'expected "soft" or "hard"' }).optional(),
  dedupe: z.boolean({ error: "expected true or false" }).optional(),
  toolErrors: z.enum(["describe", "generic", "fatal"], {
    error: 'expected "describe", "generic" or "fatal"',
  }).optional(),
  concurrency: z.int().min(1).optional(),
  stopOnPermanentError: z.boolean().optional(),
  researchDepth: z.int().min(0).describe(
    "Levels of `research` subagents below the run (0: no research tool; default 1; " +
      "raised to what a scenario needs)",
  ).optional(),
  researchWrites: z.boolean().describe(
    "Give `research` subagents every demo tool, delete_file (which needs approval) included " +
      "(on for a scenario that needs it)",
  ).optional(),
  prices: z.union([PricesSchema, PriceTableSchema]).optional(),
  limits: RunLimitsSchema.partial().optional(),
  context: ContextSettingsSchema.optional().describe(
    "Compact the prompt of a long run: old tool results elided, older turns summarized",
  ),
});

// Compile-time guard: RunSettings and its schema describe the same fields.
type Flat<T> = { [K in keyof T]: T[K] };
type Same<A, B> = (<T>() => T extends Flat<A> ? 1 : 2) extends (<T>() => T extends Flat<B> ? 1 : 2)
  ? true
  : false;
const _settingsInSync: Same<z.infer<typeof RunSettingsSchema>, RunSettings> = true;

/**
 * The settings stored for run `runId`, validated ({} when none were stored).
 *
 * @throws {RecordError} naming the first invalid field.
 *
 * @example
 * ```ts
 * import { parseStoredSettings } from "./run_settings.ts";
 * console.log(parseStoredSettings("r1", { limits: { maxTurns: 3 } }).limits); // { maxTurns: 3 }
 * ```
 */
export function parseStoredSettings(runId: string, value: unknown): RunSettings {
  if (value === null || value === undefined) return {};
  const result = RunSettingsSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new RecordError(runId, ["settings", ...issue.path.map(String)].join("."), issue.message);
}

/** What a run executes with besides its {@link RunSettings}. */
export interface RunSetup {
  /** The model. */
  model: Model;
  /** The tree's workspace, the tools' only folder. */
  workspace: Workspace;
  /** Options of `scan_archive` (e.g. `{ ms: 300 }` in tests). */
  scan?: ScanArchiveOptions;
  /** Aborts the run (Ctrl-C, server shutdown). */
  signal?: AbortSignal;
  /** Where trace events go (besides the store's own log). */
  trace?: TraceSink;
  /** More tools for the root run (e.g. those of MCP servers). */
  extraTools?: readonly AnyTool[];
  /** Makes a model by name (for a context policy's `summaryModel`). */
  makeModel?: (name: string) => Model;
}

/**
 * The tools of a run: the demo tools, plus `research` (`researchDepth` levels
 * deep, default 1; none for 0) whose children get the read-only demo tools,
 * or all of them with `researchWrites`.
 *
 * @example
 * ```ts
 * import { toolsFor } from "./run_settings.ts";
 * import { createWorkspace } from "../tools/workspace.ts";
 * const ws = await createWorkspace();
 * console.log(toolsFor(ws, { researchDepth: 0 }).some((t) => t.name === "research")); // false
 * await ws.remove();
 * ```
 */
export function toolsFor(
  workspace: Workspace,
  settings: RunSettings,
  scan?: ScanArchiveOptions,
): AnyTool[] {
  const depth = settings.researchDepth ?? 1;
  const tools = demoTools(workspace, { scan });
  if (depth > 0) {
    // Read-only by default; `researchWrites` hands children delete_file too (approval needed).
    const childTools = settings.researchWrites ? demoTools(workspace, { scan }) : undefined;
    tools.push(researchTool({ workspace, scan, depth, tools: childTools }));
  }
  return tools;
}

/**
 * `settings` raised to what scenario `name` needs (its `researchDepth` and
 * `researchWrites` in the scenario catalog): a scenario's needs are minimums,
 * so a run that plays it never meets an unknown `research` tool. Any other
 * name (a real model) leaves the settings as they are.
 *
 * @example
 * ```ts
 * import { settingsForScenario } from "./run_settings.ts";
 * console.log(settingsForScenario({ researchDepth: 0 }, "research-deep").researchDepth); // 2
 * ```
 */
export function settingsForScenario(settings: RunSettings, name?: string): RunSettings {
  const spec = name === undefined ? undefined : scenarioSpec(name);
  if (!spec) return settings;
  const out = { ...settings };
  if (spec.researchDepth !== undefined) {
    out.researchDepth = Math.max(settings.researchDepth ?? 1, spec.researchDepth);
  }
  if (spec.researchWrites) out.researchWrites = true;
  return out;
}

/**
 * The `run()` options of a stored run from its settings and setup. When the
 * model is a scripted one, the settings are first raised to what its scenario
 * needs ({@link settingsForScenario}), the same for the CLI and the server.
 *
 * @example
 * ```ts
 * import { runOptionsFor } from "./run_settings.ts";
 * import { scriptedModel } from "../testing/scripted_model.ts";
 * import { createWorkspace } from "../tools/workspace.ts";
 * const ws = await createWorkspace();
 * const options = runOptionsFor({ dedupe: true }, { model: scriptedModel("plan"), workspace: ws });
 * console.log(options.dedupe, options.tools?.length); // true 5
 * await ws.remove();
 * ```
 */
export function runOptionsFor(given: RunSettings, setup: RunSetup): RunOptions {
  const scenario = scriptedScenario(setup.model);
  const settings = settingsForScenario(given, scenario);
  return {
    model: setup.model,
    // A scenario with a typed answer (`extract`) gets its output schema, on every resume too.
    output: scenario === undefined ? undefined : scenarioSpec(scenario)?.output,
    tools: [...toolsFor(setup.workspace, settings, setup.scan), ...setup.extraTools ?? []],
    limits: settings.limits,
    budgetMode: settings.budgetMode,
    dedupe: settings.dedupe,
    toolErrors: settings.toolErrors,
    concurrency: settings.concurrency,
    stopOnPermanentError: settings.stopOnPermanentError,
    prices: settings.prices,
    context: contextPolicyOf(settings.context, setup),
    signal: setup.signal,
    trace: setup.trace,
  };
}

/** The context policy of settings (its summary model made by name), or undefined. */
function contextPolicyOf(
  context: ContextSettings | undefined,
  setup: RunSetup,
): ContextPolicy | undefined {
  if (!context) return undefined;
  const { summaryModel, ...rest } = context;
  if (summaryModel === undefined) return rest;
  if (!setup.makeModel) {
    throw new TypeError(`context.summaryModel "${summaryModel}": no model factory to make it`);
  }
  return { ...rest, summaryModel: setup.makeModel(summaryModel) };
}
