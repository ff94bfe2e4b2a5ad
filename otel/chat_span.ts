/**
 * The `chat {model}` span of one model call: started before the call (so the
 * provider's HTTP span nests in it), given what the reply says about itself,
 * ended when the reply is billed (its cost known) or the call fails; the
 * call's metrics are recorded then.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { ModelReply, ModelRequest } from "../harness/model.ts";
import { type GenAiMetrics, recordCall } from "./genai_metrics.ts";
import { contentAttributes } from "./message_content.ts";
import { errorType, failSpan } from "./span_status.ts";

/** What a model call cost, as the run billed it. */
export interface ChatBill {
  /** The run's turn count after the call, when it was a turn. */
  turn?: number | undefined;
  /** USD of this call. */
  costUsd: number;
  /** The run's cost so far, this call included. */
  runCostUsd: number;
}

/** The span of one model call (see the module doc). */
export class ChatSpan {
  /** The context to make the call in. */
  readonly context: Context;
  readonly #span: Span;
  readonly #metrics: GenAiMetrics;
  readonly #capture: boolean;
  readonly #started = performance.now();
  /** The conventions' attributes of the call, for the metrics too. */
  readonly #attributes: Attributes;
  #usage?: { input: number; output: number };

  /** Starts the span of a call of `model` under `parent`, with `base` on it. */
  constructor(
    setup: { tracer: Tracer; metrics: GenAiMetrics; capture: boolean },
    parent: Context,
    base: Attributes,
    model: { provider: string; name: string },
    request: ModelRequest,
  ) {
    this.#metrics = setup.metrics;
    this.#capture = setup.capture;
    this.#attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": model.provider,
      "gen_ai.request.model": model.name,
    };
    this.#span = setup.tracer.startSpan(`chat ${model.name}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        ...base,
        ...this.#attributes,
        ...(request.maxTokens === undefined
          ? {}
          : { "gen_ai.request.max_tokens": request.maxTokens }),
      },
    }, parent);
    this.context = trace.setSpan(parent, this.#span);
  }

  /** The model answered: what it said about itself (the cost comes with {@link billed}). */
  returned(request: ModelRequest, reply: ModelReply): void {
    const u = reply.usage ?? {};
    const responseModel = reply.model ?? this.#attributes["gen_ai.request.model"];
    this.#attributes["gen_ai.response.model"] = responseModel;
    this.#usage = { input: u.prompt_tokens, output: u.completion_tokens };
    this.#span.setAttributes({
      "gen_ai.response.model": responseModel,
      "gen_ai.response.finish_reasons": [reply.finishReason],
      "gen_ai.usage.input_tokens": u.prompt_tokens,
      "gen_ai.usage.output_tokens": u.completion_tokens,
      ...(u.cached_prompt_tokens === undefined
        ? {}
        : { "gen_ai.usage.cache_read.input_tokens": u.cached_prompt_tokens }),
      ...(u.cache_write_tokens === undefined
        ? {}
        : { "gen_ai.usage.cache_creation.input_tokens": u.cache_write_tokens }),
      ...(this.#capture ? contentAttributes(request.messages, reply) : {}),
    });
  }

  /** The call failed (after the client's retries): an error span, its duration counted. */
  failed(request: ModelRequest, error: unknown): void {
    const type = errorType(error);
    this.#attributes["error.type"] = type;
    this.#span.setAttribute("error.type", type);
    if (this.#capture) this.#span.setAttributes(contentAttributes(request.messages));
    failSpan(this.#span, error);
    this.#span.end();
    recordCall(this.#metrics, { attributes: this.#attributes, seconds: this.#seconds() });
  }

  /**
   * The reply was billed (a `turn` event, or another call the run paid for,
   * such as a compaction's summary): its cost goes on the span, which ends,
   * and into the metrics.
   */
  billed(bill: ChatBill): void {
    this.#span.setAttributes({
      ...(bill.turn === undefined ? {} : { "reins.turn": bill.turn }),
      "reins.cost_usd": bill.costUsd,
      "gen_ai.usage.cost": bill.costUsd,
      "reins.run.cost_usd": bill.runCostUsd,
    });
    this.#span.end();
    recordCall(this.#metrics, {
      attributes: this.#attributes,
      seconds: this.#seconds(),
      usage: this.#usage,
      costUsd: bill.costUsd,
    });
  }

  /** A reply without valid usage (counted as an estimate), or a Stop: the span ends as it is. */
  close(): void {
    this.#span.end();
  }

  #seconds(): number {
    return (performance.now() - this.#started) / 1000;
  }
}
