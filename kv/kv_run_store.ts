/**
 * Runs persisted in Deno KV. A save is one atomic that appends only the new
 * messages and rewrites the small header, checked against the header's
 * versionstamp from this instance's last load or save, so bytes per turn do
 * not grow with the transcript and two executors cannot fork a run.
 *
 * @module
 */
import { isDrivenByRun } from "../harness/driven_states.ts";
import { keepLease } from "./lease_keeper.ts";
import { coalesceDeltas } from "./delta_coalescer.ts";
import type { RunStore } from "../harness/run_store.ts";
import type { RunState } from "../harness/state.ts";
import type { ChatMessage } from "../harness/messages.ts";
import type { RunStoppedEvent, TraceSink } from "../harness/trace.ts";
import { RunConflictError, RunNotFoundError, RunTooLargeError } from "../harness/errors.ts";
import { RecordError } from "./record_error.ts";
import { headerChunkPrefix, messagePrefix, runKey, runSettingsKey, stagingKey } from "./keys.ts";
import { fromHeader, parseHeader, type StoredHeader } from "./record.ts";
import { type Known, planSave } from "./save_plan.ts";
import { joinHeader, overflowParts } from "./header_chunks.ts";
import { decodeMessage, planBatches, write } from "./chunks.ts";
import { KvEventLog, type StoredEvent, storedEvent } from "./events.ts";
import { retryLocked } from "./retry.ts";
import { decodeValue, encodeValue } from "./value_codec.ts";
import {
  acquireLease,
  type Lease,
  leaseHolder,
  type LeaseHolderInfo,
  localHostname,
  releaseLease,
  renewLease,
} from "./leases.ts";
import {
  indexFieldsOf,
  type ListOptions,
  listRuns,
  looseIndexKeys,
  type RunSummary,
  summaryOf,
} from "./indexes.ts";

export type { ListOptions, RunSummary } from "./indexes.ts";

/** Options of {@link KvRunStore}. */
export interface KvRunStoreOptions {
  /** Lease time to live in ms (default 30,000); executors renew every third of it. */
  leaseMs?: number;
  /** Who this instance is, in leases (default: `pid<pid>-<random>`, unique per instance). */
  owner?: string;
  /**
   * Where this instance runs, stored in its leases so a holder that died can
   * be recognised (default: this machine's hostname, when readable, and `Deno.pid`).
   */
  holder?: LeaseHolderInfo;
}

const DELETE_BATCH = 500;

/**
 * A `RunStore` over a `Deno.Kv` you open and close.
 *
 * @example
 * ```ts
 * import { KvRunStore } from "./kv_run_store.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("hi");
 * await store.save(s);
 * console.log((await store.load(s.runId)).messages.length, (await store.list()).length); // 1 1
 * kv.close();
 * ```
 */
export class KvRunStore implements RunStore {
  /** Where this instance runs (host, pid), stored in its leases. */
  readonly holder: LeaseHolderInfo;
  /** This instance's name in leases. */
  readonly owner: string;
  /** Lease time to live in ms. */
  readonly leaseMs: number;
  /** Estimated bytes (keys + values) written by the last `save` (for benchmarks). */
  lastCommitBytes = 0;
  #kv: Deno.Kv;
  #known = new Map<string, Known>();
  /** States run() drives whose header this instance validated (their first save here). */
  #validated = new WeakSet<object>();
  #events: KvEventLog;

  /** Wraps an open KV handle; closing it stays the caller's job. */
  constructor(kv: Deno.Kv, options: KvRunStoreOptions = {}) {
    if (!kv || typeof kv.atomic !== "function") {
      throw new TypeError("new KvRunStore(kv): kv must be an open Deno.Kv");
    }
    this.#kv = kv;
    this.leaseMs = options.leaseMs ?? 30_000;
    if (!(this.leaseMs > 0)) throw new RangeError(`leaseMs must be positive, got ${this.leaseMs}`);
    this.owner = options.owner ?? `pid${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
    this.holder = options.holder ?? { host: localHostname(), pid: Deno.pid };
    this.#events = new KvEventLog(kv);
  }

  /**
   * Commits the new messages, the header and the indexes in one atomic
   * checked against the version this instance last saw (a run it never saw
   * must not exist yet). Throws `RunConflictError` when that check fails.
   * `settings`: stored with it in the same atomic (as {@link saveSettings}
   * does alone): a new run and its settings appear together, in one commit.
   */
  async save(state: Readonly<RunState>, options: { settings?: unknown } = {}): Promise<void> {
    const id = state?.runId;
    if (typeof id !== "string" || id === "") {
      throw new TypeError("save(state): state.runId missing");
    }
    const known = this.#known.get(id);
    // The header of a state run() drives is validated on its first save here, then
    // trusted: the loop alone changes it (harness/driven_states.ts).
    const driven = isDrivenByRun(state);
    const trusted = known !== undefined && driven && this.#validated.has(state);
    const extra = "settings" in options ? [write(runSettingsKey(id), options.settings)] : [];
    const { cut, writes, final, drops, reserve, index } = planSave(state, known, trusted, extra);
    if (driven) this.#validated.add(state);
    // What this save stores, taken now: the state may grow while it commits (a
    // spend save runs beside the run's tools), and what it appends is the next save's.
    const count = state.messages.length;
    const check = { key: runKey(id), versionstamp: known?.versionstamp ?? null };
    // The trace events emitted since the last save ride in this save's last atomic.
    const held = this.#events.withHeld(id, reserve, async (events) => {
      // Stored failed over the ceiling: its last event says so too.
      if (cut) {
        for (const e of events) {
          if (e.value.type === "run_stopped") e.value = asFailed(e.value, cut);
        }
      }
      const batches = planBatches(writes, {
        bytes: reserve + events.reduce((n, e) => n + e.bytes, 0),
        mutations: final.length + drops.length + 1 + events.length,
      });
      // Large turns: earlier atomics stage chunks past the stored messageCount
      // (ignored on load if the final commit fails), holding the staging key so
      // two such saves cannot interleave.
      let staging: { key: Deno.KvKey; versionstamp: string | null } | null = null;
      let bytes = 0;
      for (const batch of batches.slice(0, -1)) {
        staging ??= await this.#kv.get(stagingKey(id), { consistency: "strong" });
        const op = this.#kv.atomic().check(check, staging);
        for (const w of batch) op.set(w.key, w.value);
        const mark = encodeValue({ owner: this.owner, at: Date.now() });
        const res = await commit(id, op.set(stagingKey(id), mark));
        if (!res.ok) return { ok: false, seqTaken: false, value: null };
        staging = { key: stagingKey(id), versionstamp: res.versionstamp };
        bytes += batch.reduce((n, w) => n + w.bytes, 0);
      }
      const op = this.#kv.atomic().check(check);
      if (staging) op.check(staging).delete(stagingKey(id));
      for (const w of [...batches[batches.length - 1], ...final]) {
        op.set(w.key, w.value);
        bytes += w.bytes;
      }
      for (const e of events) {
        op.set(e.key, storedEvent(e.value));
        bytes += e.bytes;
      }
      for (const e of events) op.check({ key: e.key, versionstamp: null });
      for (const k of drops) op.delete(k);
      const res = await commit(id, op);
      if (res.ok) return { ok: true, value: { versionstamp: res.versionstamp, bytes } };
      // Refused: the run moved on (a conflict), or only an event seq was taken.
      const now = await this.#kv.get(runKey(id), { consistency: "strong" });
      return { ok: false, seqTaken: now.versionstamp === check.versionstamp, value: null };
    });
    const done = await held;
    if (!done) {
      throw new RunConflictError(id, known ? undefined : "a run with this id already exists");
    }
    this.#known.set(id, { versionstamp: done.versionstamp, count, index });
    this.#events.hold(id);
    this.lastCommitBytes = done.bytes;
    if (cut) throw new RunTooLargeError(id, cut.stopReason ?? "over the ceiling");
  }

  /** Loads and validates a run (`RunNotFoundError`, `RecordError`). */
  async load(id: string): Promise<RunState> {
    const { versionstamp, header, state } = await this.#read(id);
    this.#known.set(id, {
      versionstamp,
      count: header.messageCount,
      index: indexFieldsOf(header),
    });
    // A run is loaded to be resumed: its first events (a resume's spend_estimated)
    // must wait for the save that carries the state they describe, as after a save.
    this.#events.hold(id);
    return state;
  }

  /** Loads and validates a run only to read it: remembers nothing, holds no events. */
  async read(id: string): Promise<RunState> {
    return (await this.#read(id)).state;
  }

  async #read(
    id: string,
  ): Promise<{ versionstamp: string; header: StoredHeader; state: RunState }> {
    const entry = await this.#kv.get(runKey(id), { consistency: "strong" });
    if (entry.versionstamp === null) throw new RunNotFoundError(id);
    const header = await this.#fullHeader(id, decodeValue(entry.value));
    const chunks = await this.#chunks(id, 0, header.messageCount);
    const messages: ChatMessage[] = [];
    for (let seq = 0; seq < header.messageCount; seq++) {
      messages.push(decodeMessage(id, seq, chunks.get(seq) ?? []));
    }
    return { versionstamp: entry.versionstamp, header, state: fromHeader(header, messages) };
  }

  /** Whether run `id` is stored (its header is there, valid or not). */
  async exists(id: string): Promise<boolean> {
    return (await this.#kv.get(runKey(id), { consistency: "strong" })).versionstamp !== null;
  }

  /**
   * Run `id` without its transcript, from its validated header alone
   * (`RunNotFoundError`, `RecordError`): cheap whatever the transcript's size.
   */
  async summary(id: string): Promise<RunSummary> {
    const entry = await this.#kv.get(runKey(id), { consistency: "strong" });
    if (entry.versionstamp === null) throw new RunNotFoundError(id);
    return summaryOf(parseHeader(id, decodeValue(entry.value)));
  }

  /**
   * Message number `seq` of run `id`, without loading the rest of the
   * transcript: null when there is none, `RecordError` when it is unreadable.
   */
  async message(id: string, seq: number): Promise<ChatMessage | null> {
    if (!Number.isInteger(seq) || seq < 0) {
      throw new RangeError(`message(id, seq): seq must be an integer >= 0, got ${seq}`);
    }
    const chunks = (await this.#chunks(id, seq, seq + 1)).get(seq);
    return chunks ? decodeMessage(id, seq, chunks) : null;
  }

  /**
   * Stores the execution settings of run `id` (any JSON value, e.g. the
   * options of a server run); they are deleted with the run.
   */
  async saveSettings(id: string, settings: unknown): Promise<void> {
    const value = encodeValue(settings);
    await retryLocked(() => this.#kv.set(runSettingsKey(id), value));
  }

  /** The execution settings stored for run `id`, or null. */
  async settings(id: string): Promise<unknown> {
    return decodeValue((await this.#kv.get(runSettingsKey(id), { consistency: "strong" })).value);
  }

  /**
   * Whether run `id` is stored as this instance last loaded or saved it (true
   * too for a run neither stored nor known: a new run). A state that is not
   * current would lose its first save, so executors check before running it.
   */
  async isCurrent(id: string): Promise<boolean> {
    const entry = await this.#kv.get(runKey(id), { consistency: "strong" });
    return entry.versionstamp === (this.#known.get(id)?.versionstamp ?? null);
  }

  /** Runs newest first, optionally of one status and/or one parent. */
  list(options: ListOptions = {}): Promise<RunSummary[]> {
    return listRuns(this.#kv, options);
  }

  /**
   * Deletes a run: header and indexes first (one checked atomic), then its
   * messages, events, lease and staging keys in batches. True if it existed.
   */
  async delete(id: string): Promise<boolean> {
    const entry = await this.#kv.get(runKey(id), { consistency: "strong" });
    if (entry.versionstamp !== null) {
      const op = this.#kv.atomic().check(entry).delete(runKey(id));
      for (const k of looseIndexKeys(id, readable(entry.value))) op.delete(k);
      if (!(await commit(id, op)).ok) {
        throw new RunConflictError(id, "it changed while being deleted");
      }
    }
    let keys: Deno.KvKey[] = [];
    for await (const e of this.#kv.list({ prefix: runKey(id) }, { consistency: "strong" })) {
      keys.push(e.key);
      if (keys.length === DELETE_BATCH) keys = await this.#deleteAll(keys);
    }
    await this.#deleteAll(keys);
    this.#known.delete(id);
    this.#events.forget(id);
    return entry.versionstamp !== null;
  }

  /** The seq of run `id`'s last stored trace event (-1 when none): where its stream goes on. */
  lastEventSeq(id: string): Promise<number> {
    return this.#events.lastSeq(id);
  }

  /** The stored trace events of a run, in order (after `afterSeq` if given). */
  events(id: string, options: { afterSeq?: number } = {}): Promise<StoredEvent[]> {
    return this.#events.read(id, options);
  }

  /**
   * A sink storing each event under its run (`["run", id, "event", seq]`);
   * streamed text (`text_delta`) is joined into a few writes a second. Events
   * of a run this instance has loaded or saved wait for its next save and are committed
   * in the same atomic (see kv/events.ts); {@link flushEvents} writes them earlier.
   */
  traceSink(): TraceSink {
    return coalesceDeltas(this.#events.sink());
  }

  /** Commits the events of run `id` still waiting for a save (after a run ended abnormally). */
  flushEvents(id: string): Promise<void> {
    return this.#events.flush(id);
  }

  /** Takes the run's lease (see `acquireLease` in leases.ts). */
  acquireLease(id: string, owner = this.owner, ttlMs = this.leaseMs): Promise<boolean> {
    return acquireLease(this.#kv, id, owner, ttlMs, this.holder);
  }

  /** Extends the run's lease if `owner` holds it. */
  renewLease(id: string, owner = this.owner, ttlMs = this.leaseMs): Promise<boolean> {
    return renewLease(this.#kv, id, owner, ttlMs, this.holder);
  }

  /** Renews the run's lease every third of the lease time (shared timer) until disposed; see lease_keeper.ts. */
  keepLease(id: string, onLost: () => void, owner = this.owner): () => Promise<void> {
    return keepLease(this.#kv, id, owner, this.leaseMs, this.holder, onLost);
  }

  /** Gives up the run's lease if `owner` holds it. */
  releaseLease(id: string, owner = this.owner): Promise<boolean> {
    return releaseLease(this.#kv, id, owner);
  }

  /** The run's live lease, or null. */
  leaseHolder(id: string): Promise<Lease | null> {
    return leaseHolder(this.#kv, id);
  }

  /** The full header a stored run key's value is, or points at (a preview's chunks). */
  async #fullHeader(id: string, value: unknown): Promise<StoredHeader> {
    const parts = overflowParts(value);
    if (parts === null) return parseHeader(id, value);
    parseHeader(id, value); // the preview must be valid too
    const chunks: unknown[] = [];
    for await (
      const e of this.#kv.list({ prefix: headerChunkPrefix(id) }, { consistency: "strong" })
    ) {
      const part = e.key[3];
      if (typeof part === "number" && part < parts) chunks[part] = decodeValue(e.value);
    }
    return parseHeader(id, joinHeader(id, parts, chunks));
  }

  /** The stored chunks of messages `from .. to - 1` of run `id`, by message number. */
  async #chunks(id: string, from: number, to: number): Promise<Map<number, unknown[]>> {
    const chunks = new Map<number, unknown[]>();
    const prefix = messagePrefix(id);
    const selector = { start: [...prefix, from], end: [...prefix, to] };
    for await (const e of this.#kv.list(selector, { consistency: "strong", batchSize: 500 })) {
      const [seq, part] = [e.key[3], e.key[4]];
      if (!Number.isInteger(seq) || !Number.isInteger(part)) {
        throw new RecordError(id, "messages", `unexpected key ${JSON.stringify(e.key)}`);
      }
      const list = chunks.get(seq as number) ?? [];
      list[part as number] = decodeValue(e.value);
      chunks.set(seq as number, list);
    }
    return chunks;
  }

  async #deleteAll(keys: Deno.KvKey[]): Promise<Deno.KvKey[]> {
    if (!keys.length) return [];
    const op = this.#kv.atomic();
    for (const k of keys) op.delete(k);
    await retryLocked(() => op.commit());
    return [];
  }
}

/** Commits (retrying while the file is locked), naming the run when KV refuses a value as too large. */
async function commit(
  id: string,
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  try {
    return await retryLocked(() => op.commit());
  } catch (e) {
    if (!(e instanceof Error) || !/too large/i.test(e.message)) throw e;
    throw new RangeError(
      `save("${id}"): ${e.message}; one commit holds at most 800 KiB`,
      { cause: e },
    );
  }
}

/** A stored value decoded, or null when it cannot be (a delete goes on without it). */
function readable(stored: unknown): unknown {
  try {
    return decodeValue(stored);
  } catch {
    return null;
  }
}

/** A `run_stopped` event saying what a run cut over the ceiling was stored as. */
function asFailed(event: RunStoppedEvent, cut: StoredHeader): RunStoppedEvent {
  return { ...event, status: "failed", interruption: null, reason: cut.stopReason ?? event.reason };
}
