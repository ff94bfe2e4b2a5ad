/**
 * Idempotency records of the HTTP API: a request with an `Idempotency-Key`
 * first claims its key (a `pending` record, one checked atomic, so two
 * requests with one key cannot both do the work), then records the answer it
 * gave (`done`, kept `ttlMs`) so a retry gets that answer again. A refused
 * request releases the key: it wrote nothing, and may be sent again. Storage
 * only; the HTTP side is `server/idempotency.ts`.
 *
 * Deno KV deletes an expired key some time after `expireIn` (SQLite: up to a
 * minute later), so each record also carries its own deadline (`until`,
 * `expiresAt`): past it, the record counts as absent.
 *
 * @module
 */
import { z } from "zod";
import { messageOf } from "../harness/message_of.ts";
import { CHUNK_BYTES, keyBytes } from "./chunks.ts";
import { idempotencyRecordKey } from "./keys.ts";
import { RecordError } from "./record_error.ts";
import { firstProblem } from "./record.ts";
import { decodeValue, encodeValue } from "./value_codec.ts";

/**
 * The version of {@link IdempotencyRecord} written now: 2 added a claim's
 * `attempt`. Records of version 1 (no `attempt`) are still read.
 */
export const IDEMPOTENCY_SCHEMA_VERSION = 2;

/** Which request a key belongs to: its route and, for a route of one run, the run. */
export interface IdempotencyScope {
  /** The route (`runs`, `messages`, `fork`, `approve`, `reject`, `resume`, `stop`). */
  route: string;
  /** The run of a `/runs/:id/...` route. */
  runId?: string | undefined;
  /** The client's `Idempotency-Key`. */
  key: string;
}

/** The answer a request gave, as recorded (and replayed). */
export interface RecordedAnswer {
  /** The HTTP status. */
  status: number;
  /** The JSON body; absent when the record would not fit one KV value with it. */
  body?: unknown;
  /** The `Location` header, if any. */
  location?: string | undefined;
  /** The run the answer is about (a replay without `body` is rebuilt from it). */
  runId?: string | undefined;
  /** A stream of this answer starts after this event seq (-1: from the first). */
  streamAfter?: number | undefined;
}

/** A claimed key whose request is still being answered (until `until`, epoch ms). */
export interface PendingRecord {
  /** {@link IDEMPOTENCY_SCHEMA_VERSION} (or 1, read). */
  $schemaVersion: 1 | typeof IDEMPOTENCY_SCHEMA_VERSION;
  /** Pending. */
  state: "pending";
  /** A hash of the request's body. */
  request: string;
  /** Past this epoch ms the claim lapsed (its process went away): another may take it. */
  until: number;
  /**
   * What the claiming attempt works with (the id of a run it creates): an
   * attempt that takes over this claim once it lapsed works with the same.
   */
  attempt?: string;
}

/** A key whose request was answered. */
export interface DoneRecord {
  /** {@link IDEMPOTENCY_SCHEMA_VERSION} (or 1, read). */
  $schemaVersion: 1 | typeof IDEMPOTENCY_SCHEMA_VERSION;
  /** Done. */
  state: "done";
  /** A hash of the request's body. */
  request: string;
  /** What it answered. */
  answer: RecordedAnswer;
  /** Epoch ms of the answer. */
  at: number;
  /** Epoch ms from which the record counts as absent (KV deletes it at about that time). */
  expiresAt: number;
}

/** A stored idempotency record. */
export type IdempotencyRecord = PendingRecord | DoneRecord;

const ms = z.number().int().nonnegative();
const version = z.union([z.literal(1), z.literal(IDEMPOTENCY_SCHEMA_VERSION)]);
const recordSchema = z.discriminatedUnion("state", [
  z.strictObject({
    $schemaVersion: version,
    state: z.literal("pending"),
    request: z.string().min(1),
    until: ms,
    attempt: z.string().min(1).optional(),
  }),
  z.strictObject({
    $schemaVersion: version,
    state: z.literal("done"),
    request: z.string().min(1),
    answer: z.strictObject({
      status: z.int().min(100).max(599),
      body: z.unknown().optional(),
      location: z.string().optional(),
      runId: z.string().min(1).optional(),
      streamAfter: z.int().min(-1).optional(),
    }),
    at: ms,
    expiresAt: ms,
  }),
]);

function keyOf(scope: IdempotencyScope): Deno.KvKey {
  return idempotencyRecordKey(scope.route, scope.key, scope.runId);
}

/** The stored record, validated (`RecordError` naming the field otherwise). */
function parseRecord(scope: IdempotencyScope, stored: unknown): IdempotencyRecord | null {
  if (stored === null) return null;
  const what = `idempotency record of key ${JSON.stringify(scope.key)} (${scope.route})`;
  let value: unknown;
  try {
    value = decodeValue(stored);
  } catch (e) {
    throw new RecordError(scope.runId ?? "", "(value)", messageOf(e), what);
  }
  const parsed = recordSchema.safeParse(value);
  if (parsed.success) return parsed.data as IdempotencyRecord;
  const [field, problem] = firstProblem("", parsed.error.issues);
  throw new RecordError(scope.runId ?? "", field, problem, what);
}

/** Whether a record still counts at `now` (a lapsed claim or an expired answer does not). */
function live(record: IdempotencyRecord | null, now: number): record is IdempotencyRecord {
  if (record === null) return false;
  return record.state === "pending" ? record.until > now : record.expiresAt > now;
}

/**
 * The record of `scope`'s key, validated, or null (none, or past its deadline).
 *
 * @example
 * ```ts
 * import { readIdempotencyRecord } from "./idempotency.ts";
 * const kv = await Deno.openKv(":memory:");
 * console.log(await readIdempotencyRecord(kv, { route: "runs", key: "k1" })); // null
 * kv.close();
 * ```
 */
export async function readIdempotencyRecord(
  kv: Deno.Kv,
  scope: IdempotencyScope,
  now = Date.now(),
): Promise<IdempotencyRecord | null> {
  const entry = await kv.get(keyOf(scope), { consistency: "strong" });
  const record = parseRecord(scope, entry.value);
  return live(record, now) ? record : null;
}

/** What {@link claimIdempotencyKey} found. */
export type Claim =
  /**
   * The key is this request's: do the work (with `attempt`), then record or
   * release with `versionstamp`.
   */
  | { kind: "claimed"; versionstamp: string; attempt?: string | undefined }
  /** Another request with the key is being answered. */
  | { kind: "pending"; record: PendingRecord }
  /** A request with the key was answered. */
  | { kind: "done"; record: DoneRecord };

/** Options of {@link claimIdempotencyKey}. */
export interface ClaimOptions {
  /** How long the claim holds without an answer (ms); past it, a retry may take the key. */
  leaseMs: number;
  /** What this attempt works with, unless it takes over a lapsed claim of the same body. */
  attempt?: string | undefined;
  /**
   * How long a claim stays stored (ms, at least `leaseMs`): a lapsed one is
   * taken over with its `attempt` until then, after which the key is new.
   */
  keepMs?: number | undefined;
  /** Now, in epoch ms (default `Date.now()`). */
  now?: number | undefined;
}

/**
 * Claims `scope`'s key for a request whose body hashes to `request`: one
 * checked atomic, so of two requests racing for a key one claims it and the
 * other finds it `pending`. A lapsed claim or an expired answer is taken over:
 * a lapsed claim of the same body with its `attempt` (its process may have
 * done the work), anything else with `options.attempt`.
 *
 * @example
 * ```ts
 * import { claimIdempotencyKey } from "./idempotency.ts";
 * const kv = await Deno.openKv(":memory:");
 * const scope = { route: "runs", key: "k1" };
 * const first = await claimIdempotencyKey(kv, scope, "h1", { leaseMs: 60_000 });
 * const second = await claimIdempotencyKey(kv, scope, "h1", { leaseMs: 60_000 });
 * console.log(first.kind, second.kind); // claimed pending
 * kv.close();
 * ```
 */
export async function claimIdempotencyKey(
  kv: Deno.Kv,
  scope: IdempotencyScope,
  request: string,
  options: ClaimOptions,
): Promise<Claim> {
  const key = keyOf(scope);
  for (;;) {
    const now = options.now ?? Date.now();
    const entry = await kv.get(key, { consistency: "strong" });
    const record = parseRecord(scope, entry.value);
    const found: IdempotencyRecord | null = record; // (live() narrows `record` to null below)
    if (live(record, now)) {
      return record.state === "pending" ? { kind: "pending", record } : { kind: "done", record };
    }
    // A claim a process left when it died, for this body: its work may be half done.
    const lapsed = found?.state === "pending" && found.request === request ? found : null;
    const attempt = lapsed?.attempt ?? options.attempt;
    const claim: PendingRecord = {
      $schemaVersion: IDEMPOTENCY_SCHEMA_VERSION,
      state: "pending",
      request,
      until: now + options.leaseMs,
      ...(attempt === undefined ? {} : { attempt }),
    };
    const expireIn = Math.max(options.leaseMs, options.keepMs ?? 0);
    const done = await kv.atomic().check(entry).set(key, encodeValue(claim), { expireIn }).commit();
    if (done.ok) return { kind: "claimed", versionstamp: done.versionstamp, attempt };
    // Another request changed the record meanwhile: read what it wrote.
  }
}

/** Options of {@link recordIdempotentAnswer}. */
export interface RecordOptions {
  /** How long the answer is kept (ms): the record's `expireIn`. */
  ttlMs: number;
  /** Now, in epoch ms (default `Date.now()`). */
  now?: number | undefined;
}

/**
 * Records `answer` under the key claimed with `versionstamp`, kept
 * `ttlMs` (KV's `expireIn`). A body too large for one KV value is left out
 * (a replay rebuilds it from `answer.runId`). False when the claim was lost
 * (it lapsed and another request took the key).
 *
 * @example
 * ```ts
 * import { claimIdempotencyKey, readIdempotencyRecord, recordIdempotentAnswer } from "./idempotency.ts";
 * const kv = await Deno.openKv(":memory:");
 * const scope = { route: "runs", key: "k1" };
 * const claim = await claimIdempotencyKey(kv, scope, "h1", { leaseMs: 60_000 });
 * if (claim.kind === "claimed") {
 *   const answer = { status: 201, body: { runId: "r1" }, runId: "r1" };
 *   await recordIdempotentAnswer(kv, scope, claim.versionstamp, "h1", answer, { ttlMs: 86_400_000 });
 * }
 * const record = await readIdempotencyRecord(kv, scope);
 * console.log(record?.state === "done" && record.answer.status); // 201
 * kv.close();
 * ```
 */
export async function recordIdempotentAnswer(
  kv: Deno.Kv,
  scope: IdempotencyScope,
  versionstamp: string,
  request: string,
  answer: RecordedAnswer,
  options: RecordOptions,
): Promise<boolean> {
  const { key, value, expireIn } = answerRecord(scope, request, answer, options);
  const done = await kv.atomic().check({ key, versionstamp }).set(key, value, { expireIn })
    .commit();
  return done.ok;
}

/** The record of an answer, encoded, to commit with the work it answers ({@link answerRecord}). */
export interface AnswerRecord {
  /** Where it goes. */
  readonly key: Deno.KvKey;
  /** The record, encoded. */
  readonly value: Uint8Array;
  /** Key + value bytes. */
  readonly bytes: number;
  /** How long it is kept (ms): KV's `expireIn`. */
  readonly expireIn: number;
}

/**
 * The record of `answer` to `scope`'s request, for work that is one commit (a
 * follow-up's save, see `KvRunStore.save`'s `answer`): committed with the
 * work, a crash cannot keep the one without the other, so a retry finds the
 * answer instead of doing the work again. Written unchecked: the work's own
 * check (its run's version) decides which of two attempts lands. A body too
 * large for one KV value is left out, as {@link recordIdempotentAnswer} does.
 *
 * @example
 * ```ts
 * import { answerRecord, readIdempotencyRecord } from "./idempotency.ts";
 * const kv = await Deno.openKv(":memory:");
 * const scope = { route: "messages", runId: "r1", key: "k1" };
 * const r = answerRecord(scope, "h1", { status: 202, runId: "r1" }, { ttlMs: 86_400_000 });
 * await kv.set(r.key, r.value, { expireIn: r.expireIn });
 * const record = await readIdempotencyRecord(kv, scope);
 * console.log(record?.state === "done" && record.answer.status); // 202
 * kv.close();
 * ```
 */
export function answerRecord(
  scope: IdempotencyScope,
  request: string,
  answer: RecordedAnswer,
  options: RecordOptions,
): AnswerRecord {
  const at = options.now ?? Date.now();
  const record: DoneRecord = {
    $schemaVersion: IDEMPOTENCY_SCHEMA_VERSION,
    state: "done",
    request,
    answer,
    at,
    expiresAt: at + options.ttlMs,
  };
  let value = encodeValue(record);
  if (value.byteLength > CHUNK_BYTES) {
    const { body: _left, ...rest } = answer;
    value = encodeValue({ ...record, answer: rest });
  }
  const key = keyOf(scope);
  return { key, value, bytes: keyBytes(key) + value.byteLength, expireIn: options.ttlMs };
}

/**
 * Releases the key claimed with `versionstamp` (its request was refused and
 * wrote nothing): a retry may claim it again.
 *
 * @example
 * ```ts
 * import { claimIdempotencyKey, releaseIdempotencyKey } from "./idempotency.ts";
 * const kv = await Deno.openKv(":memory:");
 * const scope = { route: "runs", key: "k1" };
 * const claim = await claimIdempotencyKey(kv, scope, "h1", { leaseMs: 60_000 });
 * if (claim.kind === "claimed") await releaseIdempotencyKey(kv, scope, claim.versionstamp);
 * console.log((await claimIdempotencyKey(kv, scope, "h2", { leaseMs: 60_000 })).kind); // claimed
 * kv.close();
 * ```
 */
export async function releaseIdempotencyKey(
  kv: Deno.Kv,
  scope: IdempotencyScope,
  versionstamp: string,
): Promise<void> {
  const key = keyOf(scope);
  await kv.atomic().check({ key, versionstamp }).delete(key).commit();
}
