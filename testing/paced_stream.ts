/**
 * The scripted provider's pacing: a reply streamed with a pause between
 * events, and the latency a request asks for.
 *
 * @module
 */
import { sleep } from "../harness/sleep.ts";

/**
 * The events as a byte stream with `ms` between two of them; ends (errors)
 * when the request's signal aborts, and leaves no timer behind when cancelled.
 */
export function pacedStream(events: string[], ms: number, signal: AbortSignal): ReadableStream {
  const bytes = new TextEncoder();
  if (ms <= 0) return new Blob(events).stream();
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The role chunk and the first piece go together, as real providers send them.
      if (i > 1) await sleep(ms, both);
      controller.enqueue(bytes.encode(events[i++]));
      if (i === events.length) controller.close();
    },
    cancel() {
      stop.abort();
    },
  });
}

/** The latency a request asks for (header or query), the default, or why it is invalid. */
export function latencyOf(req: Request, fallback: number | undefined): number | string {
  const raw = req.headers.get("x-reins-latency-ms") ??
    new URL(req.url).searchParams.get("latency_ms");
  if (raw === null) return fallback ?? 0;
  const ms = Number(raw);
  return Number.isFinite(ms) && ms >= 0 && raw.trim() !== ""
    ? ms
    : `Invalid latency "${raw}": expected milliseconds >= 0`;
}
