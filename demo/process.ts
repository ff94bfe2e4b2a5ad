/**
 * How this repository's processes (`deno task serve`, `serve:parallel`,
 * `worker`, `run`) serve the demo agents: scenario names play the scripted
 * provider in process (when scripted: on by default locally, off on Deno
 * Deploy, `REINS_SCRIPTED`), any other model name goes to `LLM_BASE_URL`;
 * a request may play a scenario (on the agent the scenario needs) and the
 * scripted provider answers at `/v1`.
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import type { ModelSettings, ReinsEnv } from "../runtime/env.ts";
import { readEnv } from "../runtime/env.ts";
import { loadTokenizer } from "../harness/tokens.ts";
import type { Mounted } from "../server/deps.ts";
import type { ScenarioCatalog } from "../testing/scenario_catalog.ts";
import type { Agent } from "../subagents/define_agent.ts";
import type { ScanArchiveOptions } from "../tools/scan_archive.ts";
import type { ServeOptions } from "../server/service.ts";
import type { CliOptions } from "../cli/cli.ts";
import type { WorkerCliOptions } from "../cli/run_worker.ts";
import { scenarioSpec } from "../testing/scenario_catalog.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { createScriptedProvider, SCRIPTED_CHUNK_MS } from "../testing/scripted_provider.ts";
import { SCENARIOS } from "../testing/scenarios.ts";
import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";
import { demoAgents } from "./agents.ts";

/** All known scenario names: the built-in ones and the run-tree ones. */
export const ALL_SCENARIOS: Readonly<Record<string, unknown>> = { ...SCENARIOS, ...TREE_SCENARIOS };

/** Options of {@link demoModels}. */
export interface DemoModelsOptions {
  /** Scenario names play the scripted model (in process). */
  scripted?: boolean | undefined;
  /** Delay of each scripted reply in ms. */
  latencyMs?: number | undefined;
  /** Pause between the streamed chunks of a scripted reply, in ms. */
  chunkMs?: number | undefined;
  /** OpenAI-compatible endpoint for every other name. */
  baseUrl?: string | undefined;
  /** Its key. */
  apiKey?: string | undefined;
}

/**
 * The demo's model factory: a scenario name plays the scripted provider in
 * process (when `scripted`); any other name goes to `baseUrl`. Throws
 * `TypeError` for a name it cannot serve.
 *
 * @example
 * ```ts
 * import { demoModels } from "./process.ts";
 * console.log(demoModels({ scripted: true })("plan").name); // plan
 * ```
 */
export function demoModels(options: DemoModelsOptions = {}): (name: string) => Model {
  const { baseUrl, apiKey } = options;
  return (name) => {
    if (options.scripted && Object.hasOwn(ALL_SCENARIOS, name)) {
      const { latencyMs, chunkMs } = options;
      return scriptedModel(name, {
        scenarios: TREE_SCENARIOS,
        latencyMs,
        chunkMs,
      });
    }
    if (baseUrl) {
      return createOpenAIModel({
        baseUrl,
        model: name,
        apiKey,
      });
    }
    throw new TypeError(
      options.scripted
        ? `unknown scenario "${name}" (known: ${
          Object.keys(ALL_SCENARIOS).sort().join(", ")
        }); another model name needs LLM_BASE_URL`
        : `cannot serve model "${name}": LLM_BASE_URL is not set (scenarios need REINS_SCRIPTED=1)`,
    );
  };
}

/**
 * The demo agent a scenario needs: `demo-deep` for research two levels deep,
 * `demo-cleanup` for research children that delete, `demo-typed` for a typed
 * answer, else undefined (the default, `demo`).
 *
 * @example
 * ```ts
 * import { scenarioAgent } from "./process.ts";
 * console.log(scenarioAgent("research-deep"), scenarioAgent("plan")); // demo-deep undefined
 * ```
 */
export function scenarioAgent(name: string): string | undefined {
  const spec = scenarioSpec(name);
  if (spec?.output) return "demo-typed";
  if (spec?.researchWrites) return "demo-cleanup";
  if ((spec?.researchDepth ?? 0) >= 2) return "demo-deep";
  return undefined;
}

/** The scenarios a request to a scripted demo server may play. */
export const DEMO_SCENARIOS: ScenarioCatalog = {
  names: Object.keys(ALL_SCENARIOS),
  task: (name) => scenarioSpec(name)?.task,
  agent: scenarioAgent,
};

/** Whether this process plays scenarios: `REINS_SCRIPTED`, else on except on Deno Deploy. */
export function isScripted(env: ReinsEnv): boolean {
  return env.scripted ?? !env.deploy;
}

/** Options of {@link demoDeps}. */
export interface DemoDepsOptions extends DemoModelsOptions {
  /** Options of `scan_archive` (e.g. `{ ms: 300 }` in tests). */
  scan?: ScanArchiveOptions;
}

/** What a demo server or worker is built from (the parts of `ServerDeps` that are the demo's). */
export interface DemoDeps {
  /** The demo agents. */
  agents: Agent[];
  /** `demo`. */
  defaultAgent: string;
  /** {@link demoModels}. */
  makeModel: (name: string) => Model;
  /** `plan` when scripted. */
  defaultModel?: string | undefined;
  /** {@link DEMO_SCENARIOS} when scripted. */
  scenarios?: ScenarioCatalog;
  /** The scripted provider at `/v1` when scripted. */
  mount?: Record<string, Mounted>;
}

/**
 * The demo's parts of a server or worker: agents, models, scenarios and
 * (scripted) the provider at `/v1`.
 *
 * @example
 * ```ts
 * import { demoDeps } from "./process.ts";
 * const deps = demoDeps({ scripted: true, scan: { ms: 300 } });
 * console.log(deps.defaultModel, Object.keys(deps.mount ?? {})); // plan ["/v1"]
 * ```
 */
export function demoDeps(options: DemoDepsOptions = {}): DemoDeps {
  const chunkMs = options.chunkMs ?? SCRIPTED_CHUNK_MS;
  const base: DemoDeps = {
    agents: demoAgents({ scan: options.scan }),
    defaultAgent: "demo",
    makeModel: demoModels({ ...options, chunkMs }),
  };
  if (!options.scripted) return base;
  const provider = createScriptedProvider({ scenarios: TREE_SCENARIOS, chunkMs });
  return {
    ...base,
    defaultModel: "plan",
    scenarios: DEMO_SCENARIOS,
    mount: { "/v1": provider.fetch },
  };
}

/** The environment, or its defaults when a variable is bad (`serve()` then refuses, naming it). */
function envOrDefaults(): ReinsEnv {
  try {
    return readEnv();
  } catch {
    return readEnv({});
  }
}

/** `scan_archive`'s options from `REINS_SCAN_MS`. */
function scanOf(env: ReinsEnv): ScanArchiveOptions {
  return env.scanMs === undefined ? {} : { ms: env.scanMs };
}

/**
 * What `serve()` serves in this repository: the demo agents (default
 * `demo`), their models, their scenarios and (scripted) the provider at `/v1`,
 * whose tokenizer it starts building at once.
 *
 * @example
 * ```ts
 * import { demoServeOptions } from "./process.ts";
 * import { readEnv } from "../runtime/env.ts";
 * console.log(demoServeOptions(readEnv({})).defaultAgent); // demo
 * ```
 */
export function demoServeOptions(env: ReinsEnv = envOrDefaults()): ServeOptions {
  const scripted = isScripted(env);
  // The scripted provider counts tokens with the o200k encoder (a 200,000-entry
  // map): built now, as the server starts, not amid its first requests, where
  // its build garbage outlives the young generation (about 20 MB more peak RSS
  // under a burst). A failed load is retried, and reported, at the first call.
  if (scripted) loadTokenizer().catch(() => {});
  const { agents, defaultAgent, defaultModel, scenarios, mount } = demoDeps({
    scripted,
    chunkMs: env.chunkMs,
    scan: scanOf(env),
  });
  return {
    agents,
    defaultAgent,
    models: (settings: ModelSettings) =>
      demoModels({ scripted, chunkMs: env.chunkMs ?? SCRIPTED_CHUNK_MS, ...settings }),
    ...(defaultModel ? { defaultModel } : {}),
    ...(scenarios ? { scenarios } : {}),
    ...(mount ? { mount } : {}),
  };
}

/**
 * What `cli()` runs in this repository: the demo agents (default `demo`);
 * scenario names play the scripted provider in process (default `plan`),
 * any other model name goes to `LLM_BASE_URL` (or `--base-url`).
 *
 * @example
 * ```ts
 * import { demoCliOptions } from "./process.ts";
 * console.log(demoCliOptions().agents.length); // 4
 * ```
 */
export function demoCliOptions(env: ReinsEnv = envOrDefaults()): CliOptions {
  const chunkMs = env.chunkMs ?? SCRIPTED_CHUNK_MS;
  return {
    agents: demoAgents({ scan: scanOf(env) }),
    defaultAgent: "demo",
    models: (settings) =>
      demoModels({
        scripted: true,
        chunkMs,
        latencyMs: settings.latencyMs,
        baseUrl: settings.baseUrl,
        apiKey: settings.apiKey,
      }),
    defaultModel: "plan",
    scenarios: DEMO_SCENARIOS,
    intro: DEMO_INTRO,
    command: "deno task run",
  };
}

/** What this repository's `deno task run --help` says first. */
const DEMO_INTRO = `With no arguments: the demo, 13 experiments (plan, turn caps, budgets, tool
errors, dedupe, approval, crash and resume, Stop, latency, subagents, typed
output) against the in-process scripted provider, one table each; exit 0 when
every one ran. Otherwise one run of a demo agent (demo, demo-deep, demo-cleanup,
demo-typed; --scenario picks the one it needs), persisted in Deno KV, or a
continuation of one. --scenario defaults to plan when there is no --base-url.`;

/**
 * What `deno task worker` executes in this repository: the demo agents;
 * scenario names play the scripted provider unless `REINS_SCRIPTED=0` (by
 * default, off for a KV Connect URL).
 *
 * @example
 * ```ts
 * import { demoWorkerOptions } from "./process.ts";
 * console.log(demoWorkerOptions().defaultAgent); // demo
 * ```
 */
export function demoWorkerOptions(env: ReinsEnv = envOrDefaults()): WorkerCliOptions {
  const chunkMs = env.chunkMs ?? SCRIPTED_CHUNK_MS;
  return {
    agents: demoAgents({ scan: scanOf(env) }),
    defaultAgent: "demo",
    models: (settings) => {
      const scripted = env.scripted ?? !settings.remoteKv;
      return demoModels({ scripted, chunkMs, baseUrl: settings.baseUrl, apiKey: settings.apiKey });
    },
    defaultModel: env.scripted === false ? undefined : "plan",
  };
}
