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
import { runKey, runSettingsKey } from "./keys.ts";
import { fromHeader, parseHeader, type StoredHeader } from "./record.ts";
import { type Known, planSave } from "./save_plan.ts";
import { decodeMessage, write } from "./chunks.ts";
import { KvEventLog, type StoredEvent } from "./events.ts";
import type { AnswerRecord } from "./idempotency.ts";
import { retryLocked } from "./retry.ts";
import { commit, commitSave } from "./staged_commit.ts";
import { readChunks, readHeader } from "./run_reader.ts";
import { decodeValue, encodeValue } from "./value_codec.ts";
import {
  acquireLease,
  type Lease,
  leaseHolder,
  type LeaseHolderInfo,
  localHostname,
  releaseLease,
  renewLease,
  setLease,
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
  leaseMs?: number | undefined;
  /** Who this instance is, in leases (default: `pid<pid>-<random>`, unique per instance). */
  owner?: string | undefined;
  /**
   * Where this instance runs, stored in its leases so a holder that died can
   * be recognised (default: this machine's hostname, when readable, and `Deno.pid`).
   */
  holder?: LeaseHolderInfo | undefined;
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
  /** Runs whose exit save gives up a lease (see {@link releaseLeaseOnExit}). */
  #exitRelease = new Map<string, { owner: string; released: boolean }>();

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
   * `lease` (a new run only): this instance's lease on it is taken in that
   * commit too, for a run about to execute here (`executeRun` with `leased`).
   * `answer`: a keyed request's answer, recorded in that commit too (see
   * `answerRecord`): a crash keeps both or neither.
   */
  async save(
    state: Readonly<RunState>,
    options: {
      settings?: unknown;
      lease?: boolean | undefined;
      answer?: AnswerRecord | undefined;
    } = {},
  ): Promise<void> {
    const id = state?.runId;
    if (typeof id !== "string" || id === "") {
      throw new TypeError("save(state): state.runId missing");
    }
    const known = this.#known.get(id);
    if (options.lease && known) {
      throw new TypeError(`save("${id}", { lease }): only a new run is leased with its save`);
    }
    const release = this.#exitRelease.get(id);
    const releasing = release && !release.released && endsExecution(state) ? release : null;
    // The header of a state run() drives is validated on its first save here, then
    // trusted: the loop alone changes it (harness/driven_states.ts).
    const driven = isDrivenByRun(state);
    const trusted = known !== undefined && driven && this.#validated.has(state);
    const extra = "settings" in options ? [write(runSettingsKey(id), options.settings)] : [];
    if (options.answer) extra.push(options.answer);
    const { cut, writes, final, drops, reserve, index } = planSave(state, known, trusted, extra);
    if (driven) this.#validated.add(state);
    // What this save stores, taken now: the state may grow while it commits (a
    // spend save runs beside the run's tools), and what it appends is the next save's.
    const count = state.messages.length;
    const check = { key: runKey(id), versionstamp: known?.versionstamp ?? null };
    if (!known) this.#events.created(id);
    // The trace events emitted since the last save ride in this save's last atomic.
    const held = this.#events.withHeld(id, reserve, async (events) => {
      // Stored failed over the ceiling: its last event says so too.
      if (cut) {
        for (const e of events) {
          if (e.value.type === "run_stopped") e.value = asFailed(e.value, cut);
        }
      }
      const lease = options.lease
        ? (op: Deno.AtomicOperation) => setLease(op, id, this.owner, this.leaseMs, this.holder)
        : undefined;
      const res = await commitSave(this.#kv, events, {
        id,
        check,
        writes,
        final,
        drops,
        reserve,
        owner: this.owner,
        lease,
        release: releasing?.owner,
      });
      if (res.ok && res.value?.released && releasing) releasing.released = true;
      return res;
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
    const header = await readHeader(this.#kv, id, decodeValue(entry.value));
    const chunks = await readChunks(this.#kv, id, 0, header.messageCount);
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
    const chunks = (await readChunks(this.#kv, id, seq, seq + 1)).get(seq);
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

  /**
   * Until the returned function is called, the exit save of run `id` (a save
   * of it no longer `running`, and not `interrupted/cancelled`) also gives up
   * `owner`'s lease, in its atomic: one commit fewer per execution. A
   * cancelled run keeps it: what follows a Stop or an eviction (children
   * still saving, a hand-over) happens under the lease. The function returns
   * whether the lease went with an exit save; if not, release it yourself.
   */
  releaseLeaseOnExit(id: string, owner = this.owner): () => boolean {
    const entry = { owner, released: false };
    this.#exitRelease.set(id, entry);
    return () => {
      if (this.#exitRelease.get(id) === entry) this.#exitRelease.delete(id);
      return entry.released;
    };
  }

  /** The run's live lease, or null. */
  leaseHolder(id: string): Promise<Lease | null> {
    return leaseHolder(this.#kv, id);
  }

  async #deleteAll(keys: Deno.KvKey[]): Promise<Deno.KvKey[]> {
    if (!keys.length) return [];
    const op = this.#kv.atomic();
    for (const k of keys) op.delete(k);
    await retryLocked(() => op.commit());
    return [];
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

/** Whether a save is its execution's last: the run stopped, other than by a cancellation. */
function endsExecution(state: Readonly<RunState>): boolean {
  if (state.status === "running") return false;
  return !(state.status === "interrupted" && state.interruption?.type === "cancelled");
}

/** A `run_stopped` event saying what a run cut over the ceiling was stored as. */
function asFailed(event: RunStoppedEvent, cut: StoredHeader): RunStoppedEvent {
  return { ...event, status: "failed", interruption: null, reason: cut.stopReason ?? event.reason };
}
