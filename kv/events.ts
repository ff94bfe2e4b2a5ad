/**
 * The trace of each run, stored under the run: `["run", id, "event", seq]`
 * with `seq` counting from 0 per run. Writes to one run are chained so they
 * keep emission order, and each claims its seq with an atomic check, so two
 * processes appending to one run never overwrite each other.
 *
 * The events of a run loaded or saved through the same `KvRunStore` ("held"
 * runs) are buffered and committed inside the next save's atomic, so a turn
 * costs one commit per save and a state never lands without the events that
 * led to it (the final save carries `run_stopped`). A `tool_progress` or
 * `text_delta` event (the live signals) flushes what is held at once: an event
 * that must never land without its state (`spend_estimated`) is saved before
 * any live signal can follow it.
 *
 * @module
 */
import type { TraceEvent, TraceSink } from "../harness/trace.ts";
import { RecordError } from "./record_error.ts";
import { eventKey, eventPrefix } from "./keys.ts";
import { valueBytes } from "./chunks.ts";
import { retryLocked } from "./retry.ts";
import { decodeValue, encodeValue } from "./value_codec.ts";
import { fitEvent } from "./fit_event.ts";

/** A stored trace event and its position in the run's trace. */
export interface StoredEvent {
  /** Position in the run's trace, from 0. */
  seq: number;
  /** The event as emitted (long strings shortened to fit a KV value). */
  event: TraceEvent;
}

/** Largest event value we write; longer strings in an event are shortened to fit. */
const EVENT_BYTES = 60_000;
/** Most held events one save carries (each costs a check; an atomic allows 100). */
const MAX_HELD_PER_SAVE = 64;
/** Most bytes of held events one save carries (an atomic allows 800 KiB). */
const MAX_HELD_BYTES = 240_000;
/**
 * A held `tool_start` goes out on its own when no save took it within this
 * many ms: a fast tool's start rides in its result's save, a slow one shows
 * as running while it runs.
 */
export const TOOL_START_LIVE_MS = 250;

/**
 * Streamed text (already coalesced to at most 4 writes a second) goes out on
 * its own after this many ms unless a save took it first: a reply that ends
 * sooner stores its words with its own save, not in commits of their own.
 */
export const TEXT_LIVE_MS = 50;

/**
 * A run's `tool_progress` goes out at once, then at most once per this many
 * ms: a tool reporting often (every 500 ms, say) would otherwise cost a commit
 * each time. What came meanwhile is written by the next flush or save.
 */
export const PROGRESS_LIVE_MS = 1000;

/** A held event, keyed, ready to be set in a save's atomic. */
export interface EventWrite {
  key: Deno.KvKey;
  value: TraceEvent;
  bytes: number;
}

/** What a save's commit reports back to {@link KvEventLog.withHeld}. */
export type HeldCommit<T> =
  | { ok: true; value: T }
  /** Not committed; `seqTaken`: only an event key was taken (retry with fresh seqs). */
  | { ok: false; seqTaken: boolean; value: T };

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
  /** Runs whose events wait for their next save, and those events in order. */
  #held = new Map<string, TraceEvent[]>();
  /** Per run: the timer that flushes a held `tool_start` (see {@link TOOL_START_LIVE_MS}). */
  #live = new Map<string, ReturnType<typeof setTimeout>>();
  /** Per run: the timer of a quiet spell after a progress flush (see {@link PROGRESS_LIVE_MS}). */
  #quiet = new Map<string, ReturnType<typeof setTimeout>>();

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
    return this.#step(id, (seq) => this.#appendAll(id, [event], seq)).then(() => undefined);
  }

  /**
   * A `TraceSink` appending to this log. Events of held runs (see {@link hold})
   * wait for the run's next save; a `tool_progress` or `text_delta` event flushes them.
   */
  sink(): TraceSink {
    return (event) => {
      const held = typeof event?.runId === "string" ? this.#held.get(event.runId) : undefined;
      if (!held) return this.append(event);
      held.push(event);
      // The live signals go out on their own: a long tool's progress at once; its
      // start, and streamed text, unless a save takes them first (a fast tool's start
      // rides in its result's save, a reply's last words in the reply's).
      if (event.type === "tool_progress") return this.#progress(event.runId);
      const liveMs = event.type === "tool_start"
        ? TOOL_START_LIVE_MS
        : event.type === "text_delta"
        ? TEXT_LIVE_MS
        : null;
      if (liveMs !== null) this.#flushLater(this.#live, event.runId, liveMs);
      return undefined;
    };
  }

  /**
   * Run `id` is being created (its save checks that no header exists): its
   * events start at seq 0 without a read. Were one stored, its key's check
   * refuses the write and the seq is read then.
   */
  created(id: string): void {
    if (!this.#next.has(id)) this.#next.set(id, Promise.resolve(0));
  }

  /** From now on, the events of run `id` wait for its next save ({@link withHeld}). */
  hold(id: string): void {
    if (!this.#held.has(id)) this.#held.set(id, []);
  }

  /** Commits the held events of run `id` on their own (no-op when none). */
  flush(id: string): Promise<void> {
    if (!this.#held.get(id)?.length) return Promise.resolve();
    return this.#step(id, (seq) => this.#appendAll(id, this.#take(id, Infinity), seq))
      .then(() => undefined);
  }

  /**
   * Runs `commit` in run `id`'s write order with its held events keyed from
   * the next free seq, for `commit` to set in its own atomic (with a
   * `versionstamp: null` check each). Events it did not commit are appended
   * on their own, so a refused or lost save never loses the trace.
   */
  async withHeld<T>(
    id: string,
    extraBytes: number,
    commit: (writes: EventWrite[]) => Promise<HeldCommit<T>>,
  ): Promise<T> {
    let value!: T;
    // A save writes what is held: the next progress may go out at once again.
    this.#stopLive(id, this.#quiet);
    await this.#step(id, async (first) => {
      let seq = first;
      // What one atomic cannot carry goes first, on its own.
      const held = this.#held.get(id) ?? [];
      let bytes = extraBytes, fits = 0;
      for (; fits < held.length && fits < MAX_HELD_PER_SAVE; fits++) {
        bytes += eventBytes(held[held.length - 1 - fits]!) + 100;
        if (bytes > MAX_HELD_BYTES) break;
      }
      if (held.length > fits) {
        seq = await this.#appendAll(id, this.#take(id, held.length - fits), seq);
      }
      const events = this.#take(id, Infinity);
      for (;;) {
        const writes = events.map((e, i) => {
          const v = fit(e);
          return { key: eventKey(id, seq + i), value: v, bytes: eventBytes(v) + 100 };
        });
        let res: HeldCommit<T>;
        try {
          res = await commit(writes);
        } catch (e) {
          const kept = notStopped(events);
          if (kept.length) await this.#appendAll(id, kept, seq).catch(() => {});
          throw e;
        }
        value = res.value;
        if (res.ok) return seq + events.length;
        // The save was refused (the run moved on elsewhere): its trace is kept, but
        // this executor's run_stopped is not the run's, which goes on.
        const kept = notStopped(events);
        if (!res.seqTaken) return kept.length ? await this.#appendAll(id, kept, seq) : seq;
        seq = await this.#lastSeq(id) + 1; // another writer took a seq: the save is retried
      }
    });
    return value;
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
      const event = decodeValue(entry.value) as Partial<TraceEvent> | null;
      if (typeof seq !== "number" || typeof event?.type !== "string") {
        throw new RecordError(id, `events.${String(seq)}`, "not a trace event");
      }
      out.push({ seq, event: event as TraceEvent });
    }
    return out;
  }

  /** A progress event of run `id` was held: flushed now, or when the quiet spell ends. */
  #progress(id: string): Promise<void> | undefined {
    if (this.#quiet.has(id)) return undefined;
    this.#flushLater(this.#quiet, id, PROGRESS_LIVE_MS);
    return this.flush(id);
  }

  /** Flushes run `id` in `ms` unless `timers` already holds a timer for it. */
  #flushLater(timers: Map<string, ReturnType<typeof setTimeout>>, id: string, ms: number): void {
    if (timers.has(id)) return;
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        this.flush(id).catch(() => {}); // a later save or flush writes them
      }, ms),
    );
  }

  #stopLive(id: string, timers = this.#live): void {
    const timer = timers.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    timers.delete(id);
  }

  /** Drops what this instance remembers of a run (after it is deleted). */
  forget(id: string): void {
    this.#stopLive(id);
    this.#stopLive(id, this.#quiet);
    this.#next.delete(id);
    this.#held.delete(id);
  }

  /** Chains `write` (given the next free seq, returning the next one after it) on run `id`. */
  #step(id: string, write: (seq: number) => Promise<number>): Promise<number> {
    const previous = this.#next.get(id) ?? Promise.resolve(-1);
    const next = previous.catch(() => -1).then(async (known) =>
      write(known < 0 ? await this.#lastSeq(id) + 1 : known)
    );
    this.#next.set(id, next);
    return next;
  }

  /** Removes and returns the first `n` held events of run `id` (it stays held). */
  #take(id: string, n: number): TraceEvent[] {
    const held = this.#held.get(id);
    if (held && n >= held.length) this.#stopLive(id);
    return held ? held.splice(0, Math.min(n, held.length)) : [];
  }

  /** Commits `events` from `seq` on (one atomic per ≤ 64), re-reading the seq when taken. */
  async #appendAll(id: string, events: readonly TraceEvent[], seq: number): Promise<number> {
    for (let from = 0; from < events.length;) {
      const part = events.slice(from, from + MAX_HELD_PER_SAVE);
      const op = this.#kv.atomic();
      let bytes = 0, n = 0;
      for (const e of part) {
        const value = fit(e);
        bytes += eventBytes(value) + 100;
        if (n > 0 && bytes > MAX_HELD_BYTES) break;
        const key = eventKey(id, seq + n++);
        op.check({ key, versionstamp: null }).set(key, storedEvent(value));
      }
      const res = await retryLocked(() => op.commit());
      if (res.ok) {
        seq += n;
        from += n;
      } else seq = await this.#lastSeq(id) + 1; // another writer took it
    }
    return seq;
  }

  /** The seq of run `id`'s last stored event (-1 when none). */
  lastSeq(id: string): Promise<number> {
    return this.#lastSeq(id);
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
/** Each event's stored bytes, encoded once: its size, its fit and its commit share them. */
const stored = new WeakMap<TraceEvent, Uint8Array>();

/**
 * An event as stored (see value_codec.ts), encoded on first use. Events are
 * not changed once emitted (a cut one is a copy), so the bytes stay true.
 *
 * @example
 * ```ts
 * import { storedEvent } from "./events.ts";
 * const e = { type: "tool_start", runId: "r1", at: "", toolName: "t", callId: "c", args: "{}" } as const;
 * console.log(storedEvent(e) === storedEvent(e)); // true
 * ```
 */
export function storedEvent(event: TraceEvent): Uint8Array {
  let bytes = stored.get(event);
  if (!bytes) stored.set(event, bytes = encodeValue(event));
  return bytes;
}

/** An event's size as `valueBytes` counts it (UTF-8 JSON + 40; the envelope is 29). */
function eventBytes(event: TraceEvent): number {
  return storedEvent(event).byteLength + 11;
}

function fit(event: TraceEvent): TraceEvent {
  // The common case measured once (the bytes are kept for the write).
  return eventBytes(event) <= EVENT_BYTES ? event : fitEvent(event, EVENT_BYTES, valueBytes);
}

/** The events but a `run_stopped`: what a refused final save may still write. */
function notStopped(events: readonly TraceEvent[]): TraceEvent[] {
  return events.filter((e) => e.type !== "run_stopped");
}
