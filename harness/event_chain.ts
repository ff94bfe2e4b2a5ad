/**
 * The `emit` of one `run()` call: events reach the sink in emission order,
 * stamped with their time. A sink that answers synchronously (an in-memory
 * sink) is called at once, with no promise chained per event; once a sink
 * call returns a promise (KV, a file) or throws, every later event is chained
 * after it, so an async sink still sees events in order and a failed sink
 * fails every later emit with its error, as a plain chain does.
 *
 * @module
 */
import type { TraceEvent, TraceEventInput, TraceSink } from "./trace.ts";
import { isoNow } from "./iso_now.ts";

const RESOLVED: Promise<void> = Promise.resolve();

/** What {@link eventChain} returns. */
export interface EventChain {
  /** Stamps and delivers one event; settles once the sink has taken it. */
  emit(event: TraceEventInput): Promise<void>;
  /** Drops every later event (set once `run_stopped` is emitted). */
  end(): void;
}

/**
 * The emitter of one run over `sink` (none: events are dropped).
 * Internal: `run()` builds one per call.
 *
 * @example
 * ```ts
 * import { eventChain } from "./event_chain.ts";
 * import { memorySink } from "./trace.ts";
 * const { sink, events } = memorySink();
 * const chain = eventChain(sink);
 * await chain.emit({ type: "tool_start", runId: "r", toolName: "t", callId: "c", args: "{}" });
 * console.log(events.length); // 1
 * ```
 */
export function eventChain(sink: TraceSink | undefined): EventChain {
  let ended = false;
  // The last sink call that returned a promise (or failed): later events wait for it.
  let tail: Promise<void> | null = null;
  return {
    emit(e) {
      if (!sink || ended) return RESOLVED;
      const event = { ...e, at: isoNow() } as TraceEvent;
      if (tail) return (tail = tail.then(() => sink(event)));
      let answer: void | Promise<void>;
      try {
        answer = sink(event);
      } catch (error) {
        return (tail = Promise.reject(error));
      }
      if (answer === undefined || typeof (answer as Promise<void>)?.then !== "function") {
        return RESOLVED;
      }
      return (tail = Promise.resolve(answer));
    },
    end() {
      ended = true;
    },
  };
}
