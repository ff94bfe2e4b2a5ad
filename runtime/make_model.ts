/**
 * The default model factory of servers, workers and the CLI: a model name
 * goes to the OpenAI-compatible endpoint of `LLM_BASE_URL` (or the config
 * file's `baseUrl`). A process that plays scripted models (the demo) passes
 * its own factory.
 *
 * @module
 */
import type { Model } from "../harness/model.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { readEnv } from "./env.ts";

/** Options of {@link defaultMakeModel}. */
export interface MakeModelOptions {
  /** OpenAI-compatible endpoint (default env `LLM_BASE_URL`). */
  baseUrl?: string | undefined;
  /** Its key (default env `LLM_API_KEY`). */
  apiKey?: string | undefined;
}

/**
 * The default model factory: any name goes to `baseUrl`. Throws `TypeError`
 * when there is no endpoint.
 *
 * @example
 * ```ts
 * import { defaultMakeModel } from "./make_model.ts";
 * const make = defaultMakeModel({ baseUrl: "http://127.0.0.1:8788/v1" });
 * console.log(make("gpt-x").name); // gpt-x
 * ```
 */
export function defaultMakeModel(options: MakeModelOptions = {}): (name: string) => Model {
  const env: { baseUrl?: string; apiKey?: string } =
    options.baseUrl === undefined || options.apiKey === undefined ? readEnv() : {};
  const baseUrl = options.baseUrl ?? env.baseUrl;
  const apiKey = options.apiKey ?? env.apiKey;
  return (name) => {
    if (baseUrl) {
      return createOpenAIModel({
        baseUrl,
        model: name,
        apiKey,
      });
    }
    throw new TypeError(`cannot serve model "${name}": LLM_BASE_URL is not set`);
  };
}
