/**
 * How a failure shows on a span: error status, its message, `error.type`.
 *
 * @module
 */
import { type Span, type SpanStatus, SpanStatusCode } from "@opentelemetry/api";
import { messageOf } from "../harness/message_of.ts";

/** A low-cardinality name for `error`: a `ModelError`'s kind, else the error class, else `_OTHER`. */
export function errorType(error: unknown): string {
  const kind = (error as { kind?: unknown })?.kind;
  if (typeof kind === "string") return kind;
  return error instanceof Error ? error.name : "_OTHER";
}

/** Marks `span` failed by `error` (recorded as an exception when it is an Error). */
export function failSpan(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: messageOf(error),
  });
}

/** An error status, with `message` when there is one (the API's `message` is a string or absent). */
export function errorStatus(message: string | null | undefined): SpanStatus {
  return message == null ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message };
}
