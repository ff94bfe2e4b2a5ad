/**
 * Models from any AI SDK provider (`@ai-sdk/anthropic`, `@ai-sdk/google`,
 * `@ai-sdk/openai-compatible`, …) as reins models.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
 * import { aiSdkModel } from "./mod.ts";
 * const provider = createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:8788/v1" });
 * const model = aiSdkModel(provider("plan"));
 * console.log(model.name); // "plan"
 * ```
 *
 * @module
 */
export {
  type AiSdkLanguageModel,
  type AiSdkModel,
  aiSdkModel,
  type AiSdkModelOptions,
} from "./ai_sdk_model.ts";
