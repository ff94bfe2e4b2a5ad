/**
 * `aiSdkModel()`: any AI SDK language model (`@ai-sdk/anthropic`, `google`,
 * `openai`, `mistral`, `openai-compatible`, …; specification v3 or v4) as a
 * reins `Model`. Calls `doGenerate`, or `doStream` when the request watches
 * the text (`onText`).
 *
 * @module
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { toPrompt, toTools } from "./ai_sdk_prompt.ts";
import { type GenerateResult, toReply } from "./ai_sdk_reply.ts";
import { readAiSdkStream } from "./ai_sdk_stream.ts";
import {
  attemptText,
  type Model,
  ModelError,
  type ModelReply,
  type ModelRequest,
  type Prices,
  saysContextLength,
  sleep,
} from "./reins.ts";

/**
 * An AI SDK language model, as the `@ai-sdk/*` providers make them
 * (`LanguageModelV3` or `LanguageModelV4` of `@ai-sdk/provider`; the fields reins uses).
 */
export interface AiSdkLanguageModel {
  /** `v3` or `v4`. */
  readonly specificationVersion: string;
  /** The provider's name, e.g. `anthropic.messages`. */
  readonly provider: string;
  /** The model's id, e.g. `claude-sonnet-4-5`. */
  readonly modelId: string;
  /** One non-streaming call. */
  // deno-lint-ignore no-explicit-any
  doGenerate(options: any): PromiseLike<unknown>;
  /** One streaming call (`{ stream }` of parts), used when the request has `onText`. */
  // deno-lint-ignore no-explicit-any
  doStream?(options: any): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /** Prices of this model; a run uses them when its own options set none. */
  prices?: Prices | undefined;
  /** The name reins prices and records the model by. Default the model's `modelId`. */
  name?: string | undefined;
  /** Retries of a failure the provider marks retryable (429, 5xx, network). Default 2. */
  maxRetries?: number | undefined;
  /** Base of the exponential backoff, in ms. Default 250. */
  retryBaseMs?: number | undefined;
  /** Passed to every call: `temperature`, `providerOptions`, `headers`, … */
  callOptions?: Record<string, unknown> | undefined;
}

/** A reins `Model` over an AI SDK language model. */
export interface AiSdkModel extends Model {
  /** The wrapped AI SDK model. */
  readonly languageModel: AiSdkLanguageModel;
  /** The prices given, if any. */
  readonly prices?: Prices | undefined;
}

/** The fields of an AI SDK `APICallError` (or any provider error) reins reads. */
interface ProviderError {
  message?: string;
  statusCode?: number;
  isRetryable?: boolean;
  /** `APICallError`: the endpoint's error body. */
  responseBody?: string;
}

/**
 * The kind of an AI SDK provider's error. The AI SDK has no error of its own
 * for a prompt over the window: its `APICallError` (400) carries the
 * provider's words (OpenAI's `context_length_exceeded`, Anthropic's "prompt
 * is too long") in `responseBody` and `message`.
 */
function kindOf(err: ProviderError): ModelError["kind"] {
  const status = err.statusCode;
  if (
    (status === undefined || status === 400 || status === 413) &&
    (saysContextLength(err.responseBody) || saysContextLength(err.message))
  ) return "context_length";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limited";
  if (status !== undefined && status >= 500) return "server";
  if (status !== undefined) return "bad_request";
  return "network";
}

/** TypeError / RangeError for a model or options `aiSdkModel` cannot use; the retry bounds. */
function checkArguments(
  languageModel: AiSdkLanguageModel,
  options: AiSdkModelOptions,
): { maxRetries: number; baseMs: number } {
  if (!languageModel || typeof languageModel.doGenerate !== "function") {
    throw new TypeError("aiSdkModel: expected an AI SDK language model (with doGenerate)");
  }
  const version = (languageModel as { specificationVersion?: string }).specificationVersion;
  if (version !== "v3" && version !== "v4") {
    throw new TypeError(
      `aiSdkModel: specification ${JSON.stringify(version)} is not supported (v3 or v4)`,
    );
  }
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(
      `aiSdkModel: maxRetries must be a non-negative integer, got ${maxRetries}`,
    );
  }
  return { maxRetries, baseMs: options.retryBaseMs ?? 250 };
}

/**
 * The AI SDK call options of a request: the prompt, the tools, the reply cap,
 * and an output schema as the AI SDK's own `responseFormat` (`type: "json"`).
 */
function callOptions(options: AiSdkModelOptions, request: ModelRequest, signal: AbortSignal) {
  const output = request.output;
  return {
    ...options.callOptions,
    prompt: toPrompt(request.messages),
    ...(request.tools.length
      ? { tools: toTools(request.tools), toolChoice: { type: "auto" as const } }
      : {}),
    ...(request.maxTokens !== undefined ? { maxOutputTokens: request.maxTokens } : {}),
    ...(output
      ? { responseFormat: { type: "json" as const, schema: output.schema, name: output.name } }
      : {}),
    abortSignal: signal,
  };
}

/**
 * Wraps an AI SDK language model as a reins `Model`: the transcript and tool
 * definitions are translated to the AI SDK prompt, the reply's text and tool
 * calls back to a chat-completions message, usage (with cache reads and
 * writes) and the finish reason mapped, the run's signal passed as
 * `abortSignal`. With the request's `onText` the call streams (`doStream`),
 * text deltas passed on as they arrive and the reply assembled as
 * `doGenerate`'s. Retryable provider errors are retried (a retry after shown
 * text calls the request's `onReset`); the rest throw `ModelError`.
 *
 * @example
 * ```ts
 * import { createAnthropic } from "@ai-sdk/anthropic";
 * import { aiSdkModel } from "./ai_sdk_model.ts";
 * import { newRun, run } from "../mod.ts";
 * const anthropic = createAnthropic({ apiKey: Deno.env.get("ANTHROPIC_API_KEY") });
 * const model = aiSdkModel(anthropic("claude-sonnet-4-5"), {
 *   prices: { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
 * });
 * const done = await run(newRun("Say hello"), { model });
 * console.log(done.output);
 * ```
 */
export function aiSdkModel(
  languageModel: AiSdkLanguageModel,
  options: AiSdkModelOptions = {},
): AiSdkModel {
  const { maxRetries, baseMs } = checkArguments(languageModel, options);
  const name = options.name ?? languageModel.modelId;
  const label = `${languageModel.provider}/${languageModel.modelId}`;

  async function generate(
    request: ModelRequest,
    signal: AbortSignal,
    onText?: (delta: string) => void,
  ): Promise<GenerateResult> {
    const call = callOptions(options, request, signal);
    // v3 and v4 call options agree on every field set here.
    const model = languageModel as LanguageModelV4;
    if (!onText) return await model.doGenerate(call) as GenerateResult;
    const { stream } = await model.doStream(call);
    return await readAiSdkStream(stream, signal, onText);
  }

  return {
    name,
    // `anthropic.messages` is served by `anthropic` (gen_ai.provider.name).
    provider: languageModel.provider.split(".")[0],
    languageModel,
    prices: options.prices,
    // The provider holds the reply to `responseFormat`, or falls back itself (with a warning).
    structuredOutput: "json_schema",
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
      signal.throwIfAborted();
      const streams = typeof languageModel.doStream === "function" && request.onText;
      const text = attemptText(request);
      for (let n = 1;; n++) {
        let result: GenerateResult;
        if (n > 1) text.retrying();
        try {
          result = await generate(request, signal, streams ? text.onText : undefined);
        } catch (e) {
          if (signal.aborted) throw signal.reason;
          if (e instanceof ModelError) throw e;
          const err = (typeof e === "object" && e !== null ? e : {}) as ProviderError;
          const message = err.message ?? String(e);
          if (err.isRetryable === true && n <= maxRetries) {
            await sleep(baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2), signal);
            continue;
          }
          const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
          throw new ModelError(
            kindOf(err),
            `${label} failed after ${attempts}: ${message}`,
            err.statusCode,
          );
        }
        return await toReply(result, request, label);
      }
    },
  };
}
