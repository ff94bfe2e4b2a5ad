/**
 * The conventions' client metrics (`gen_ai.client.token.usage`,
 * `gen_ai.client.operation.duration`) and reins's cost counter.
 *
 * @module
 */
import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";

/** The instruments one telemetry observer records to. */
export interface GenAiMetrics {
  /** `gen_ai.client.token.usage`: tokens per call, by `gen_ai.token.type` (input | output). */
  tokens: Histogram;
  /** `gen_ai.client.operation.duration`: seconds per model call. */
  duration: Histogram;
  /** `reins.client.cost`: USD billed per model call (a monotonic sum). */
  cost: Counter;
}

// The bucket boundaries the conventions advise.
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
const SECOND_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48];

/**
 * Creates the instruments on `meter`.
 *
 * @example
 * ```ts
 * import { metrics } from "@opentelemetry/api";
 * import { genAiMetrics } from "./genai_metrics.ts";
 * const m = genAiMetrics(metrics.getMeter("reins"));
 * m.cost.add(0.0001, { "gen_ai.request.model": "gpt-x" }); // a no-op without a meter provider
 * ```
 */
export function genAiMetrics(meter: Meter): GenAiMetrics {
  return {
    tokens: meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      description: "Number of input and output tokens used.",
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    duration: meter.createHistogram("gen_ai.client.operation.duration", {
      unit: "s",
      description: "GenAI operation duration.",
      advice: { explicitBucketBoundaries: SECOND_BUCKETS },
    }),
    cost: meter.createCounter("reins.client.cost", {
      unit: "{USD}",
      description: "USD billed for model calls, as reins prices them.",
    }),
  };
}

/** What one model call adds to the metrics. */
export interface CallMeasure {
  /** The conventions' attributes of the call (operation, provider, models, `error.type`). */
  attributes: Attributes;
  /** Seconds the call took. */
  seconds: number;
  /** Tokens, when the call returned. */
  usage?: { input: number; output: number } | undefined;
  /** USD, when billed. */
  costUsd?: number | undefined;
}

/** Records one model call. */
export function recordCall(m: GenAiMetrics, call: CallMeasure): void {
  m.duration.record(call.seconds, call.attributes);
  if (call.usage) {
    m.tokens.record(call.usage.input, { ...call.attributes, "gen_ai.token.type": "input" });
    m.tokens.record(call.usage.output, { ...call.attributes, "gen_ai.token.type": "output" });
  }
  if (call.costUsd !== undefined && call.costUsd > 0) m.cost.add(call.costUsd, call.attributes);
}
