/**
 * The Deno KV key layout of runs. Everything of one run lives under
 * `["run", id]`; the third element names the kind, so listing one kind
 * (`["run", id, "msg"]`) never catches another. Indexes live under their own
 * top-level prefixes and carry `createdAtMs` so a reverse listing is newest first.
 *
 * @module
 */
import type { RunStatus } from "../harness/state.ts";

/**
 * The run's header: the state without its messages.
 *
 * @example
 * ```ts
 * import { runKey } from "./keys.ts";
 * console.log(runKey("r1")); // ["run", "r1"]
 * ```
 */
export function runKey(id: string): Deno.KvKey {
  return ["run", id];
}

/**
 * Prefix of every message chunk of a run.
 *
 * @example
 * ```ts
 * import { messagePrefix } from "./keys.ts";
 * console.log(messagePrefix("r1")); // ["run", "r1", "msg"]
 * ```
 */
export function messagePrefix(id: string): Deno.KvKey {
  return ["run", id, "msg"];
}

/**
 * One chunk (`part`) of the JSON text of message number `seq`.
 *
 * @example
 * ```ts
 * import { messageKey } from "./keys.ts";
 * console.log(messageKey("r1", 3, 0)); // ["run", "r1", "msg", 3, 0]
 * ```
 */
export function messageKey(id: string, seq: number, part: number): Deno.KvKey {
  return ["run", id, "msg", seq, part];
}

/**
 * Chunk `part` of a header too large for one KV value (see kv/header_chunks.ts).
 *
 * @example
 * ```ts
 * import { headerChunkKey } from "./keys.ts";
 * console.log(headerChunkKey("r1", 0)); // ["run", "r1", "head", 0]
 * ```
 */
export function headerChunkKey(id: string, part: number): Deno.KvKey {
  return ["run", id, "head", part];
}

/** The prefix of all header chunks of run `id`. */
export function headerChunkPrefix(id: string): Deno.KvKey {
  return ["run", id, "head"];
}

/**
 * Prefix of every trace event of a run.
 *
 * @example
 * ```ts
 * import { eventPrefix } from "./keys.ts";
 * console.log(eventPrefix("r1")); // ["run", "r1", "event"]
 * ```
 */
export function eventPrefix(id: string): Deno.KvKey {
  return ["run", id, "event"];
}

/**
 * Trace event number `seq` of a run.
 *
 * @example
 * ```ts
 * import { eventKey } from "./keys.ts";
 * console.log(eventKey("r1", 0)); // ["run", "r1", "event", 0]
 * ```
 */
export function eventKey(id: string, seq: number): Deno.KvKey {
  return ["run", id, "event", seq];
}

/**
 * Who executes the run, until when.
 *
 * @example
 * ```ts
 * import { leaseKey } from "./keys.ts";
 * console.log(leaseKey("r1")); // ["run", "r1", "lease"]
 * ```
 */
export function leaseKey(id: string): Deno.KvKey {
  return ["run", id, "lease"];
}

/**
 * Claimed by a save too large for one atomic, so two such saves cannot
 * interleave their message chunks.
 *
 * @example
 * ```ts
 * import { stagingKey } from "./keys.ts";
 * console.log(stagingKey("r1")); // ["run", "r1", "staging"]
 * ```
 */
export function stagingKey(id: string): Deno.KvKey {
  return ["run", id, "staging"];
}

/**
 * Index of every run by creation time.
 *
 * @example
 * ```ts
 * import { runsByTimeKey } from "./keys.ts";
 * console.log(runsByTimeKey(1700000000000, "r1")); // ["runs_by_time", 1700000000000, "r1"]
 * ```
 */
export function runsByTimeKey(createdAtMs: number, id: string): Deno.KvKey {
  return ["runs_by_time", createdAtMs, id];
}

/**
 * Index of runs by status, then creation time.
 *
 * @example
 * ```ts
 * import { runsByStatusKey } from "./keys.ts";
 * console.log(runsByStatusKey("completed", 1700000000000, "r1"));
 * ```
 */
export function runsByStatusKey(status: RunStatus, createdAtMs: number, id: string): Deno.KvKey {
  return ["runs_by_status", status, createdAtMs, id];
}

/**
 * Index of child runs by parent, then creation time (so children list newest first).
 *
 * @example
 * ```ts
 * import { runsByParentKey } from "./keys.ts";
 * console.log(runsByParentKey("p1", 1700000000000, "c1"));
 * ```
 */
export function runsByParentKey(parentId: string, createdAtMs: number, id: string): Deno.KvKey {
  return ["runs_by_parent", parentId, createdAtMs, id];
}

/**
 * A counter every Stop bumps (beside its record, in the same atomic): an
 * executor watches this one key, not one per tree, and reads the Stops of
 * its trees only when it moves.
 *
 * @example
 * ```ts
 * import { stopEpochKey } from "./keys.ts";
 * console.log(stopEpochKey()); // ["stop_epoch"]
 * ```
 */
export function stopEpochKey(): Deno.KvKey {
  return ["stop_epoch"];
}

/**
 * The Stop of a whole run tree, keyed by its root. The stored prefix stays
 * `"cancel"` (the name it had before "stop" was the word) on purpose: Stops
 * recorded by earlier versions are still seen, and while old and new
 * processes share a database (a rolling deploy), a Stop written by either is
 * seen by both. A new key would need two reads, two watches and a two-key
 * compare-and-swap to clear, and an old worker would miss a new Stop. Only
 * this function names the key.
 *
 * @example
 * ```ts
 * import { stopKey } from "./keys.ts";
 * console.log(stopKey("root1")); // ["cancel", "root1"]
 * ```
 */
export function stopKey(rootId: string): Deno.KvKey {
  return ["cancel", rootId];
}

/**
 * The execution settings kept with a run (e.g. the options of a server run),
 * under the run so deleting the run drops them.
 *
 * @example
 * ```ts
 * import { runSettingsKey } from "./keys.ts";
 * console.log(runSettingsKey("r1")); // ["run", "r1", "server_options"]
 * ```
 */
export function runSettingsKey(id: string): Deno.KvKey {
  return ["run", id, "server_options"];
}

/**
 * What the first HTTP request with an `Idempotency-Key` answered (see
 * kv/idempotency.ts): scoped to its route and, for a route of one run, the
 * run's id. A top-level prefix, not under the run: `POST /runs` has no run
 * yet, and the records expire on their own.
 *
 * @example
 * ```ts
 * import { idempotencyRecordKey } from "./keys.ts";
 * console.log(idempotencyRecordKey("messages", "k1", "r1")); // ["idempotency", "messages", "r1", "k1"]
 * console.log(idempotencyRecordKey("runs", "k1")); // ["idempotency", "runs", "", "k1"]
 * ```
 */
export function idempotencyRecordKey(route: string, key: string, runId = ""): Deno.KvKey {
  return ["idempotency", route, runId, key];
}

/** What the indexes of a run are computed from. */
export interface IndexFields {
  /** The run. */
  runId: string;
  /** Its status. */
  status: RunStatus;
  /** `Date.parse(createdAt)`. */
  createdAtMs: number;
  /** Its parent run, if any. */
  parentId: string | null;
}

/**
 * Every index key of a run.
 *
 * @example
 * ```ts
 * import { indexKeys } from "./keys.ts";
 * console.log(indexKeys({ runId: "r1", status: "running", createdAtMs: 1, parentId: null }).length); // 2
 * ```
 */
export function indexKeys(f: IndexFields): Deno.KvKey[] {
  const keys = [
    runsByTimeKey(f.createdAtMs, f.runId),
    runsByStatusKey(f.status, f.createdAtMs, f.runId),
  ];
  if (f.parentId !== null) keys.push(runsByParentKey(f.parentId, f.createdAtMs, f.runId));
  return keys;
}
