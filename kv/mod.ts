/**
 * Runs in Deno KV: the store (a header plus one entry per message, every save
 * one checked atomic), its leases, the stored trace, the stored Stop record,
 * and `openKv` for a path or a KV Connect URL. Storage only; executing stored
 * runs is `./runtime`.
 *
 * @example
 * ```ts
 * import { KvRunStore } from "./mod.ts";
 * import { newRun } from "../mod.ts";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvRunStore(kv);
 * const state = newRun("hello");
 * await store.save(state);
 * console.log((await store.load(state.runId)).messages[0].content); // hello
 * kv.close();
 * ```
 *
 * @module
 */
export {
  KvRunStore,
  type KvRunStoreOptions,
  type ListOptions,
  type RunSummary,
} from "./kv_run_store.ts";
export { KvOpenError, openKv, type OpenKvOptions } from "./open_kv.ts";
// What a compacted run stores besides its messages (`RunState.context`).
export type { ContextState } from "../harness/context_view.ts";
export type { StoredEvent } from "./events.ts";
export type { Lease, LeaseHolderInfo } from "./leases.ts";
export type { StopRequest } from "./stop_record.ts";
// A keyed request's answer, recorded in the commit of the save it answers (`save`'s `answer`).
export type { AnswerRecord } from "./idempotency.ts";
// What a store throws: a record that fails validation, a lost compare-and-swap, a record too large.
export { RecordError } from "./record_error.ts";
export { RunConflictError, RunNotFoundError, RunTooLargeError } from "../harness/errors.ts";
// The events of a trace, live (`RunOptions.trace`) or stored (`StoredEvent`).
export type {
  ApprovalRequiredEvent,
  BudgetOverspentEvent,
  CompactionEvent,
  OutputInvalidEvent,
  RunHandedOverEvent,
  RunStoppedEvent,
  SpendEstimatedEvent,
  TextDeltaEvent,
  ToolProgressEvent,
  ToolResultEvent,
  ToolStartEvent,
  TraceBase,
  TurnEvent,
  UserMessageEvent,
} from "../harness/trace.ts";
