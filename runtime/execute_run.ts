/**
 * Executing a stored run: one executor at a time per run (a lease, renewed
 * while the run goes on), every checkpoint saved to KV, every trace event
 * stored under the run.
 *
 * @module
 */
import type { RunObserver, RunOptions } from "../harness/run_options.ts";
import type { RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import { combineSinks, type TraceSink } from "../harness/trace.ts";
import { RunConflictError, RunStateError } from "../harness/errors.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { openTelemetry } from "../otel/open_telemetry.ts";

/** Options of {@link executeRun}: `run()`'s, plus who holds the lease. */
export interface ExecuteRunOptions extends RunOptions {
  /** The lease owner (default: the store's `owner`). */
  owner?: string;
  /**
   * Refuse (`RunStateError`) unless the stored run is `running` once the lease
   * is held: a sweep's claim, which must not restart a run that stopped
   * between its look and its lease. A state handed in is then what it looked
   * at: used if still current, else the run is loaded again.
   */
  onlyIfRunning?: boolean;
  /**
   * The state handed in was just saved by `store` with `owner`'s lease (a new
   * run, `save(state, { lease: true })`): the lease is not taken again and
   * the state not checked against KV. Its saves are checked as always.
   */
  leased?: boolean;
  /**
   * Called with the run's final state while the lease is still held; what it
   * returns is the result (e.g. an evicted run marked `running` again, so no
   * one sees it stopped without a lease).
   */
  settle?: (state: RunState) => Promise<RunState>;
  /**
   * Wraps the run's whole trace (`options.trace` and the store's own sink),
   * e.g. to turn an evicted execution's `run_stopped` into a `run_handed_over`.
   */
  mapTrace?: (sink: TraceSink) => TraceSink;
}

/** The process's telemetry (spans only when an OpenTelemetry SDK is registered, e.g. OTEL_DENO=true). */
let telemetry: RunObserver | undefined;

/** Executions going on in this process, so one owner cannot run a run twice at once. */
const active = new Set<string>();

/**
 * Marks run `id` as executed here by `owner` (before any await, so a second
 * call in this process sees it) and takes its lease unless it is `leased`
 * already; returns the local key.
 */
async function claim(
  store: KvRunStore,
  id: string,
  owner: string,
  leased: boolean | undefined,
): Promise<string> {
  const local = `${owner}\u0000${id}`;
  if (active.has(local)) throw new RunConflictError(id, `run is being executed by ${owner}`);
  active.add(local);
  if (leased) return local;
  try {
    if (!(await store.acquireLease(id, owner))) {
      const holder = (await store.leaseHolder(id))?.owner ?? "another owner";
      throw new RunConflictError(id, `run is being executed by ${holder}`);
    }
  } catch (e) {
    active.delete(local);
    throw e;
  }
  return local;
}

/** Renews the lease every third of its time; aborts `lost` once someone else holds it. */
function renewWhileRunning(
  store: KvRunStore,
  id: string,
  owner: string,
  lost: AbortController,
): { stop(): Promise<void> } {
  // One timer per KV handle renews the leases of every run executing here, in batches
  // (kv/lease_keeper.ts). A failed renewal is retried next time; only a lease taken by
  // someone else stops us.
  const stop = store.keepLease(id, () => {
    if (!lost.signal.aborted) lost.abort(`lease on run "${id}" was lost`);
  }, owner);
  return { stop };
}

/**
 * The state to run once the lease is held: loaded now (given an id), or the
 * one handed in while still current (`leased`: just saved with the lease, so
 * current without a look). A stale one is refused before the model
 * is asked (and paid) for a turn whose save would conflict anyway, unless this
 * is a sweep's claim: it looked before it held the lease, and what is stored
 * now decides (one load instead of two when nothing moved meanwhile).
 */
async function stateUnderLease(
  store: KvRunStore,
  id: string,
  given: string | RunState,
  claim: boolean | undefined,
  leased: boolean | undefined,
): Promise<RunState> {
  if (typeof given === "string") return await store.load(id);
  if (leased || await store.isCurrent(id)) return given;
  if (claim) return await store.load(id);
  throw new RunConflictError(id, "it changed since this store loaded it");
}

/**
 * Runs (or continues) a stored run under its lease: throws `RunConflictError`
 * when another live owner executes it. Given an id, the run is loaded first;
 * given a state, it must be what this store last loaded or saved of that run
 * (or a new run). `options.store` is replaced by `store`, and `options.trace`
 * is kept alongside the store's own trace sink. If the lease is lost midway
 * (renewals failed for a whole lease time), the run is stopped.
 *
 * @example
 * ```ts
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { executeRun } from "./execute_run.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const s = newRun("say hi");
 * await store.save(s);
 * const model = { name: "m", complete: () => Promise.resolve({
 *   message: { role: "assistant" as const, content: "hi" },
 *   usage: { prompt_tokens: 10, completion_tokens: 2 }, finishReason: "stop" }) };
 * console.log((await executeRun(store, s.runId, { model })).status); // completed
 * kv.close();
 * ```
 */
export async function executeRun(
  store: KvRunStore,
  runIdOrState: string | RunState,
  options: ExecuteRunOptions,
): Promise<RunState> {
  const id = typeof runIdOrState === "string" ? runIdOrState : runIdOrState?.runId;
  if (typeof id !== "string" || id === "") {
    throw new TypeError("executeRun(store, runIdOrState): expected a run id or a RunState");
  }
  const { owner = store.owner, onlyIfRunning, leased, settle, mapTrace, ...runOptions } = options;
  if (leased && typeof runIdOrState === "string") {
    throw new TypeError(`executeRun("${id}", { leased }): leased needs the state just saved`);
  }
  const local = await claim(store, id, owner, leased);
  const lost = new AbortController();
  const renewal = renewWhileRunning(store, id, owner, lost);
  // The exit's save gives the lease up in its own commit, unless a cancellation's
  // aftermath (children saving, a hand-over) still needs it.
  const exitRelease = store.releaseLeaseOnExit(id, owner);
  try {
    const state = await stateUnderLease(store, id, runIdOrState, onlyIfRunning, leased);
    if (onlyIfRunning && state.status !== "running") {
      throw new RunStateError(id, state.status, "execute");
    }
    const signal = options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal;
    const trace = combineSinks(options.trace, store.traceSink());
    const done = await run(state, {
      ...runOptions,
      signal,
      store,
      trace: mapTrace ? mapTrace(trace) : trace,
      observe: runOptions.observe ?? (telemetry ??= openTelemetry()),
    });
    return settle ? await settle(done) : done;
  } finally {
    // A run that threw may leave events waiting for a save that never comes.
    await Promise.all([renewal.stop(), store.flushEvents(id).catch(() => {})]);
    active.delete(local);
    // Not releasing only delays the next executor by one lease time: never mask the run's result.
    if (!exitRelease()) await store.releaseLease(id, owner).catch(() => false);
  }
}

/**
 * Saves a new run (`RunConflictError` if its id exists) and executes it.
 *
 * @example
 * ```ts
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { startRun } from "./execute_run.ts";
 * import { newRun } from "../harness/state.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const model = { name: "m", complete: () => Promise.resolve({
 *   message: { role: "assistant" as const, content: "hi" },
 *   usage: { prompt_tokens: 10, completion_tokens: 2 }, finishReason: "stop" }) };
 * const done = await startRun(store, newRun("say hi"), { model });
 * console.log((await store.events(done.runId)).length > 0); // true
 * kv.close();
 * ```
 */
export async function startRun(
  store: KvRunStore,
  state: RunState,
  options: ExecuteRunOptions,
): Promise<RunState> {
  await store.save(state);
  return await executeRun(store, state, options);
}
