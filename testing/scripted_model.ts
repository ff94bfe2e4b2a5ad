/**
 * The scripted provider as a `Model`, in process: the real OpenAI-compatible
 * client talking HTTP shapes to the provider's `fetch`, with no port.
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { scriptedFetch, type ScriptedProviderOptions } from "./scripted_provider.ts";

/** Base URL the in-process scripted model pretends to call. */
export const SCRIPTED_BASE_URL = "http://scripted.reins.local/v1";

/** Options of {@link scriptedModel}: the provider's, plus the client's retry bound. */
export interface ScriptedModelOptions extends ScriptedProviderOptions {
  /** Retries of the model client (default 3). */
  maxRetries?: number | undefined;
  /** Base backoff of the model client in ms (default 250). */
  retryBaseMs?: number | undefined;
  /** Ask for streamed replies (default true); `onText` sees them as they arrive. */
  stream?: boolean | undefined;
}

/**
 * A model that plays a scenario (`plan`, `runaway`, `recover`, …).
 *
 * @example
 * ```ts
 * import { scriptedModel } from "./scripted_model.ts";
 * import { newRun, run } from "../mod.ts";
 * const done = await run(newRun("hi"), { model: scriptedModel("echo") });
 * console.log(done.output); // "hi"
 * ```
 */
export function scriptedModel(scenario: string, options: ScriptedModelOptions = {}): Model {
  const { maxRetries, retryBaseMs, stream, ...provider } = options;
  const model = createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: scenario,
    provider: "reins.scripted",
    fetch: scriptedFetch(provider),
    maxRetries,
    retryBaseMs,
    stream,
  });
  played.set(model, scenario);
  return model;
}

/** The scenario each scripted model plays (a real model of the same name plays none). */
const played = new WeakMap<Model, string>();

/**
 * The scenario `model` plays if it is a {@link scriptedModel}, else undefined.
 *
 * @example
 * ```ts
 * import { scriptedModel, scriptedScenario } from "./scripted_model.ts";
 * console.log(scriptedScenario(scriptedModel("plan"))); // plan
 * ```
 */
export function scriptedScenario(model: Model): string | undefined {
  return played.get(model);
}
