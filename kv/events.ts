/**
 * The trace of each run, stored under the run: `["run", id, "event", seq]`
 * with `seq` counting from 0 per run. Writes to one run are chained so they
 * keep emission order, and each claims its seq with an atomic check, so two
 * processes appending to one run never overwrite each other.
 *
 * @module
 */
import type { TraceEvent, TraceSink } from "../harness/trace.ts";
import { RecordError } from "./record_error.ts";
import { eventKey, eventPrefix } from "./keys.ts";
import { valueBytes } from "./chunks.ts";
import { retryLocked } from "./retry.ts";
import { cutText } from "../harness/text.ts";

/** A stored trace event and its position in the run's trace. */
export interface StoredEvent {
  /** Position in the run's trace, from 0. */
  seq: number;
  /** The event as emitted (long strings shortened to fit a KV value). */
  event: TraceEvent;
}

/** Largest event value we write; longer strings in an event are shortened to fit. */
const EVENT_BYTES = 60_000;

/**
 * Appends and reads the trace events of runs in one KV.
 *
 * @example
 * ```ts
 * import { KvEventLog } from "./events.ts";
 * const kv = await Deno.openKv(":memory:");
 * const log = new KvEventLog(kv);
 * await log.append({ type: "tool_start", runId: "r1", at: "", toolName: "t", callId: "c", args: "{}" });
 * console.log((await log.read("r1")).map((e) => e.seq)); // [0]
 * kv.close();
 * ```
 */
export class KvEventLog {
  #kv: Deno.Kv;
  /** Per run: the promise of the next free seq (rejected after a failed write). */
  #next = new Map<string, Promise<number>>();

  /** Wraps a KV handle (not closed by this class). */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Appends one event under its run; resolves once it is committed. */
  append(event: TraceEvent): Promise<void> {
    const id = event?.runId;
    if (typeof id !== "string" || id === "") {
      return Promise.reject(new TypeError("trace event without a runId cannot be stored"));
    }
    const value = fit(event);
    const previous = this.#next.get(id) ?? Promise.resolve(-1);
    const next = previous.catch(() => -1).then(async (known) => {
      let seq = known < 0 ? await this.#lastSeq(id) + 1 : known;
      for (;;) {
        const key = eventKey(id, seq);
        const op = this.#kv.atomic().check({ key, versionstamp: null }).set(key, value);
        const res = await retryLocked(() => op.commit());
        if (res.ok) return seq + 1;
        seq = await this.#lastSeq(id) + 1; // another writer took it
      }
    });
    this.#next.set(id, next);
    return next.then(() => undefined);
  }

  /** A `TraceSink` appending to this log. */
  sink(): TraceSink {
    return (event) => this.append(event);
  }

  /** The events of a run in order, optionally only those after `afterSeq`. */
  async read(id: string, options: { afterSeq?: number } = {}): Promise<StoredEvent[]> {
    const after = options.afterSeq ?? -1;
    const selector: Deno.KvListSelector = after >= 0
      ? { prefix: eventPrefix(id), start: eventKey(id, Math.floor(after) + 1) }
      : { prefix: eventPrefix(id) };
    const out: StoredEvent[] = [];
    for await (const entry of this.#kv.list(selector, { consistency: "strong" })) {
      const seq = entry.key[3];
      const event = entry.value as Partial<TraceEvent> | null;
      if (typeof seq !== "number" || typeof event?.type !== "string") {
        throw new RecordError(id, `events.${String(seq)}`, "not a trace event");
      }
      out.push({ seq, event: event as TraceEvent });
    }
    return out;
  }

  /** Drops what this instance remembers of a run (after it is deleted). */
  forget(id: string): void {
    this.#next.delete(id);
  }

  async #lastSeq(id: string): Promise<number> {
    const iter = this.#kv.list({ prefix: eventPrefix(id) }, {
      reverse: true,
      limit: 1,
      consistency: "strong",
    });
    for await (const entry of iter) {
      const seq = entry.key[3];
      if (typeof seq === "number") return seq;
    }
    return -1;
  }
}

/**
 * Shortens the longest strings of an event until it fits one KV value (the
 * trace is a diagnostic record; the transcript is never shortened).
 */
function fit(event: TraceEvent): TraceEvent {
  if (valueBytes(event) <= EVENT_BYTES) return event;
  const copy = { ...event } as Record<string, unknown>;
  for (let i = 0; i < 64 && valueBytes(copy) > EVENT_BYTES; i++) {
    let longest = "";
    for (const [k, v] of Object.entries(copy)) {
      if (typeof v === "string" && (!longest || v.length > (copy[longest] as string).length)) {
        longest = k;
      }
    }
    if (!longest) break;
    const text = copy[longest] as string;
    const keep = Math.floor(text.length / 2);
    copy[longest] = `${cutText(text, keep)}… [${text.length - keep} characters cut]`;
  }
  return copy as unknown as TraceEvent;
}
