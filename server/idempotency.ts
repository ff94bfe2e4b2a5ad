/**
 * `Idempotency-Key` on every POST route: `POST /runs`, and a run's
 * `messages`, `fork`, `approve`, `reject`, `resume` and `stop` (the IETF
 * httpapi draft's header, as Stripe takes it). A client on a flaky network
 * retries with the same key and gets the first answer again
 * (`Idempotent-Replayed: true`) instead of a second run, a message appended
 * twice, or a 409 for a verdict that took effect.
 *
 * - The key is 1 to 255 printable ASCII characters (400 otherwise), scoped to
 *   the route and, for a run's route, the run.
 * - The first request claims the key (one checked atomic), does the work and
 *   records its answer (status, body, `Location`) for {@link IDEMPOTENCY_TTL_MS}.
 * - A retry with the same body gets that answer without the work; as an event
 *   stream when it asks for one (`Accept: text/event-stream`): the run's stream
 *   from the same event the first answer's stream started after, so nothing is
 *   missed. A fork's answer is JSON either way, as the first one.
 * - The same key with another body is a 422; while the first request is being
 *   answered, a second one is a 409 with `Retry-After: 1` (it does not wait).
 * - A refused request (400, 404, 409, ...) releases the key: it wrote nothing
 *   and may be sent again, fixed, with the same key.
 * - A follow-up is one commit (the message and the run's status), and its
 *   answer is recorded in that commit: a retry after any crash either finds
 *   the answer (a replay) or finds nothing done.
 * - Other work (a new run, a fork) is recorded after it: a process that dies
 *   between the two leaves a claim that lapses after
 *   {@link IDEMPOTENCY_LEASE_MS}; a retry after that does the work again, given
 *   the same {@link Attempt} (kept in the claim for 24 h): the run or fork it
 *   creates gets the id of the first attempt's, which it then finds and
 *   answers with. A verdict, resume or Stop retried then is refused or finds
 *   its work done (409 or a no-op), never applied twice.
 *
 * @module
 */
import type { Context } from "hono";
import {
  type AnswerRecord,
  answerRecord,
  claimIdempotencyKey,
  type IdempotencyScope,
  type RecordedAnswer,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
} from "../kv/idempotency.ts";
import { hashOf } from "../subagents/describe_agent.ts";
import type { ResolvedDeps } from "./deps.ts";
import { BadRequestError, HttpError } from "./errors.ts";
import { eventStream } from "./routes_events.ts";
import { runView } from "./views.ts";

/** The request header naming a request's idempotency key. */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
/** The response header of an answer replayed for a retry (`true`). */
export const REPLAYED_HEADER = "Idempotent-Replayed";
/** How long an answer is kept for retries: 24 hours (the record's KV `expireIn`). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a claimed key waits for its answer before a retry may take it over. */
export const IDEMPOTENCY_LEASE_MS = 60_000;

const KEY = /^[\x20-\x7E]{1,255}$/;

/** What a POST route answers: its status, JSON body, and what a stream of it needs. */
export type Answer = RecordedAnswer & { body: unknown };

/**
 * The request's `Idempotency-Key`, validated (a `BadRequestError` naming the
 * header otherwise), or undefined when it has none.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { idempotencyKeyOf } from "./idempotency.ts";
 * const app = new Hono().post("/", (c) => c.text(idempotencyKeyOf(c) ?? "none"));
 * const res = await app.request("/", { method: "POST", headers: { "Idempotency-Key": "k1" } });
 * console.log(await res.text()); // k1
 * ```
 */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY.test(key)) {
    throw new BadRequestError(
      IDEMPOTENCY_KEY_HEADER,
      `expected 1 to 255 printable ASCII characters, got ${
        key.length > 255 ? `${key.length} characters` : JSON.stringify(key)
      }`,
    );
  }
  return key;
}

/**
 * Answers a POST with `work`, once per `Idempotency-Key` (see the module
 * doc): without a key, `work` runs; with one, a retry gets the recorded
 * answer (and the replay header), another body a 422, a request racing the
 * first a 409. `request` is the validated body: equal bodies hash equally.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { answerOnce, sendAnswer } from "./idempotency.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const deps = resolveDeps({ kv, store: new KvRunStore(kv), agents: [defineAgent({ name: "a", instructions: "", tools: [] })] });
 * let done = 0;
 * const app = new Hono().post("/", async (c) =>
 *   sendAnswer(c, deps, await answerOnce(c, deps, { route: "demo" }, {}, async () => {
 *     done++;
 *     return { status: 201, body: { n: done } };
 *   }), false)
 * );
 * const post = () => app.request("/", { method: "POST", headers: { "Idempotency-Key": "k" } });
 * await post();
 * const again = await post();
 * console.log(again.headers.get("Idempotent-Replayed"), await again.json(), done); // true { n: 1 } 1
 * kv.close();
 * ```
 */
export async function answerOnce(
  c: Context,
  deps: ResolvedDeps,
  route: Omit<IdempotencyScope, "key">,
  request: unknown,
  work: (attempt: Attempt) => Promise<Answer>,
): Promise<Answer> {
  const key = idempotencyKeyOf(c);
  if (key === undefined) return await work({});
  const scope = { ...route, key };
  const hash = await hashOf(request);
  const claim = await claimIdempotencyKey(deps.kv, scope, hash, {
    leaseMs: IDEMPOTENCY_LEASE_MS,
    keepMs: IDEMPOTENCY_TTL_MS,
    attempt: crypto.randomUUID(),
  });
  if (claim.kind !== "claimed") {
    const where = `${c.req.method} ${c.req.path}`;
    if (claim.record.request !== hash) {
      throw new HttpError(
        422,
        "idempotency_key_reused",
        `${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(key)} was used with another body for ` +
          `${where}: a new request needs a new key`,
      );
    }
    if (claim.kind === "pending") {
      throw new HttpError(
        409,
        "idempotency_in_progress",
        `a request with ${IDEMPOTENCY_KEY_HEADER} ${
          JSON.stringify(key)
        } is in progress for ${where}; retry once it is answered`,
        { "Retry-After": "1" },
      );
    }
    c.header(REPLAYED_HEADER, "true");
    return await replayOf(deps, claim.record.answer);
  }
  let answer: Answer;
  let recorded = false;
  const answerWith = (a: Answer) => {
    recorded = true;
    return answerRecord(scope, hash, a, { ttlMs: IDEMPOTENCY_TTL_MS });
  };
  try {
    answer = await work({ runId: claim.attempt, answerWith });
  } catch (e) {
    // Refused: it wrote nothing, so the key may be sent again.
    await releaseIdempotencyKey(deps.kv, scope, claim.versionstamp).catch(() => {});
    throw e;
  }
  // Recorded by the work's own commit, or now.
  if (!recorded) await record(deps, scope, claim.versionstamp, hash, answer);
  return answer;
}

/** What the work of a keyed request is given, the same on every attempt of it. */
export interface Attempt {
  /**
   * The id of a run the request creates (absent without a key): new for a
   * new key, kept in its claim, so an attempt after a crash between the work
   * and its record (the claim lapsed) finds the run the first made, not a
   * second. A key whose answer expired (24 h) is a new request: a new id.
   */
  runId?: string | undefined;
  /**
   * The record of the answer, for work that is one commit (a follow-up's
   * save) to make with it (absent without a key): then the work and its
   * answer land together, and a retry after a crash is a replay.
   */
  answerWith?: (answer: Answer) => AnswerRecord;
}

/** Records the answer; the work is done, so a failure to record is logged, not answered. */
async function record(
  deps: ResolvedDeps,
  scope: IdempotencyScope,
  versionstamp: string,
  hash: string,
  answer: Answer,
): Promise<void> {
  const what = `${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(scope.key)} (${scope.route})`;
  try {
    const kept = await recordIdempotentAnswer(deps.kv, scope, versionstamp, hash, answer, {
      ttlMs: IDEMPOTENCY_TTL_MS,
    });
    if (!kept) console.error(`${what}: the claim lapsed before the answer; it is not recorded`);
  } catch (e) {
    console.error(`${what}: the answer could not be recorded:`, e);
  }
}

/** A recorded answer; one recorded without its body (too large) is rebuilt from its run. */
async function replayOf(deps: ResolvedDeps, answer: RecordedAnswer): Promise<Answer> {
  if (answer.body !== undefined || answer.runId === undefined) {
    return { ...answer, body: answer.body ?? null };
  }
  return { ...answer, body: runView(await deps.freshStore().read(answer.runId), null) };
}

/**
 * Sends an answer: its `Location`, then the run's event stream when `stream`
 * and the answer has one (from `streamAfter` on), else its JSON body.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { sendAnswer } from "./idempotency.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const deps = resolveDeps({ kv, store: new KvRunStore(kv), agents: [defineAgent({ name: "a", instructions: "", tools: [] })] });
 * const app = new Hono().post("/", (c) => sendAnswer(c, deps, { status: 202, body: { ok: true } }, false));
 * console.log((await app.request("/", { method: "POST" })).status); // 202
 * kv.close();
 * ```
 */
export function sendAnswer(
  c: Context,
  deps: ResolvedDeps,
  answer: Answer,
  stream: boolean,
): Response {
  if (answer.location !== undefined) c.header("Location", answer.location);
  const status = answer.status as 201;
  if (stream && answer.runId !== undefined && answer.streamAfter !== undefined) {
    c.status(status);
    return eventStream(c, deps, answer.runId, { after: answer.streamAfter });
  }
  return c.json(answer.body, status);
}
