/**
 * W3C trace context (`traceparent`) as stored with a run, so an execution in
 * another process joins the run's trace without any propagator registered.
 *
 * @module
 */
import { isSpanContextValid, type SpanContext } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The `traceparent` header value of a span context (version 00).
 *
 * @example
 * ```ts
 * import { formatTraceparent } from "./traceparent.ts";
 * const tp = formatTraceparent({ traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 1 });
 * console.log(tp); // 00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01
 * ```
 */
export function formatTraceparent(context: SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/**
 * The remote span context a `traceparent` names, or null when it is absent or invalid.
 *
 * @example
 * ```ts
 * import { parseTraceparent } from "./traceparent.ts";
 * const c = parseTraceparent("00-" + "a".repeat(32) + "-" + "b".repeat(16) + "-01");
 * console.log(c?.spanId, parseTraceparent("nonsense")); // bbbbbbbbbbbbbbbb null
 * ```
 */
export function parseTraceparent(value: string | undefined): SpanContext | null {
  const [, traceId, spanId, flags] = value?.match(TRACEPARENT) ?? [];
  if (!traceId || !spanId || !flags) return null;
  const context = { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true };
  return isSpanContextValid(context) ? context : null;
}
