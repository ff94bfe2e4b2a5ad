/**
 * The default model factory of servers and workers: a scenario name plays
 * the scripted provider in process (when scripted), any other name goes to an
 * OpenAI-compatible endpoint (`LLM_BASE_URL`).
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { SCENARIOS } from "../testing/scenarios.ts";
import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";

/** All known scenario names: the built-in ones and the run-tree ones. */
export const ALL_SCENARIOS: Readonly<Record<string, unknown>> = { ...SCENARIOS, ...TREE_SCENARIOS };

/** Options of {@link defaultMakeModel}. */
export interface MakeModelOptions {
  /** Scenario names play the scripted model (in process). */
  scripted?: boolean;
  /** Delay of each scripted reply in ms. */
  latencyMs?: number;
  /** Pause between the streamed chunks of a scripted reply, in ms. */
  chunkMs?: number;
  /** OpenAI-compatible endpoint for every other name (default env `LLM_BASE_URL`). */
  baseUrl?: string;
  /** Its key (default env `LLM_API_KEY`). */
  apiKey?: string;
}

/**
 * The default model factory: a scenario name plays the scripted provider in
 * process (when `scripted`); any other name goes to `LLM_BASE_URL`. Throws
 * `TypeError` for a name it cannot serve.
 *
 * @example
 * ```ts
 * import { defaultMakeModel } from "./make_model.ts";
 * const make = defaultMakeModel({ scripted: true });
 * console.log(make("plan").name); // plan
 * ```
 */
export function defaultMakeModel(options: MakeModelOptions = {}): (name: string) => Model {
  const baseUrl = options.baseUrl ?? Deno.env.get("LLM_BASE_URL");
  const apiKey = options.apiKey ?? Deno.env.get("LLM_API_KEY");
  return (name) => {
    if (options.scripted && Object.hasOwn(ALL_SCENARIOS, name)) {
      const { latencyMs, chunkMs } = options;
      return scriptedModel(name, { scenarios: TREE_SCENARIOS, latencyMs, chunkMs });
    }
    if (baseUrl) return createOpenAIModel({ baseUrl, model: name, apiKey });
    throw new TypeError(
      options.scripted
        ? `unknown model "${name}": not a scenario, and LLM_BASE_URL is not set`
        : `cannot serve model "${name}": LLM_BASE_URL is not set (scenarios need REINS_SCRIPTED=1)`,
    );
  };
}
