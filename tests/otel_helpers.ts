// Telemetry tests' setup: the OpenTelemetry SDK (npm, test only) recording in
// memory what `openTelemetryWith()` sends through @opentelemetry/api.
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "npm:@opentelemetry/sdk-trace-base@2.12.1";
import { MeterProvider, MetricReader } from "npm:@opentelemetry/sdk-metrics@2.12.1";
import type { OpenTelemetryOptions } from "../otel/mod.ts";
import { openTelemetryWith } from "../otel/open_telemetry.ts";

export class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Keeps finished spans (the SDK's InMemorySpanExporter answers on a timer the test sanitizer flags). */
export class MemoryExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.spans.push(...spans);
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export function telemetry(options: OpenTelemetryOptions = {}) {
  const exporter = new MemoryExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meters = new MeterProvider({ readers: [reader] });
  const observe = openTelemetryWith(
    { tracer: provider.getTracer("reins"), meter: meters.getMeter("reins") },
    options,
  );
  const close = async () => {
    await provider.shutdown(); // waits for the exporter's pending callbacks
    await meters.shutdown();
  };
  return { observe, spans: () => exporter.spans, reader, close };
}

export const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
export const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

export function reply(content: string, usage = { prompt_tokens: 100, completion_tokens: 10 }) {
  return { message: { role: "assistant" as const, content }, usage, finishReason: "stop" };
}
