/**
 * The one seam between the loop and a model. The loop never sees `fetch`:
 * adapters (the OpenAI-compatible client, the in-process scripted provider)
 * implement this.
 *
 * @module
 */
import type { AssistantMessage, CallUsage, ChatMessage, ToolDefinition } from "./messages.ts";
import type { Prices } from "./cost.ts";
import type { OutputFormat } from "./output.ts";

/** What the loop asks a model for. */
export interface ModelRequest {
  /** The transcript so far, oldest first. */
  messages: ChatMessage[];
  /** The tools the model may call (empty for none). */
  tools: ToolDefinition[];
  /** Cap on the reply's tokens (hard budget mode sets it). */
  maxTokens?: number | undefined;
  /**
   * The JSON Schema the answer must match (runs with `output`), sent only to a
   * model that declares `structuredOutput: "json_schema"`: it asks the
   * endpoint to hold the reply to it (OpenAI's `response_format`). Tool calls
   * stay allowed.
   */
  output?: OutputFormat | undefined;
  /**
   * Receives the reply's text as it arrives, piece by piece, when the model
   * streams; a model that cannot stream ignores it. The pieces are for
   * watching: the reply `complete()` resolves with is the record.
   */
  onText?: ((delta: string) => void) | undefined;
  /**
   * Called when the text given to `onText` so far is void: the attempt that
   * streamed it failed and the call is being retried, so watchers start the
   * reply over. Called at most once per retried attempt, only after some text.
   */
  onReset?: (() => void) | undefined;
}

/**
 * An attempt whose reply was lost on the way (a stream cut short, a connection
 * dropped mid-reply) after the provider had taken the call: it may have
 * billed it, so the loop counts it as an estimate (`estimatedUsd`, a
 * `spend_estimated` event) beside the call's real usage.
 */
export interface LostReply {
  /** Reply tokens that had arrived: counted locally (o200k), or as the provider reported them. */
  completion_tokens: number;
  /**
   * Prompt tokens the provider reported for this attempt (a malformed reply
   * may still carry its usage). Absent: the loop estimates the prompt.
   */
  prompt_tokens?: number | undefined;
  /** Why the reply was lost, e.g. `the stream ended before the reply finished`. */
  reason: string;
}

/** What a model call returns. */
export interface ModelReply {
  /** The assistant's reply: text and/or tool calls. */
  message: AssistantMessage;
  /** Real token counts of this call (cache reads and writes too, when the provider says). */
  usage: CallUsage;
  /** `stop`, `tool_calls`, `length`, … as the endpoint said (a refusal: `content_filter`). */
  finishReason: string;
  /** The model name the endpoint reported, if any. */
  model?: string | undefined;
  /** Attempts of this call whose reply was lost before this one answered (see {@link LostReply}). */
  lost?: LostReply[] | undefined;
}

/**
 * A chat model. Implementations throw `ModelError` for failures retrying did
 * not fix, and reject with the signal's reason when it aborts.
 */
export interface Model {
  /** Model name, used for pricing lookups. */
  readonly name: string;
  /**
   * Who serves it, as OpenTelemetry's `gen_ai.provider.name` says (`openai`,
   * `anthropic`, …); telemetry only.
   */
  readonly provider?: string | undefined;
  /** This model's prices, used when the run's options set none. */
  readonly prices?: Prices | undefined;
  /**
   * `json_schema`: the model honours `ModelRequest.output` (a run with an
   * output schema sends it). Absent: such a run gives the model a
   * `final_answer` tool instead.
   */
  readonly structuredOutput?: "json_schema" | undefined;
  /** Makes one billed call. */
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply>;
}
