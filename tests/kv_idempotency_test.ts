// The idempotency records in real KV: a claim is one checked atomic, a lapsed claim or an
// expired answer is taken over, a claim taken over cannot record, a body too large for one
// KV value is left out (the replay rebuilds it from the run), records are validated.
import assert from "node:assert/strict";
import {
  answerRecord,
  claimIdempotencyKey,
  readIdempotencyRecord,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
} from "../kv/idempotency.ts";
import { idempotencyRecordKey } from "../kv/keys.ts";
import { RecordError } from "../kv/record_error.ts";
import { encodeValue } from "../kv/value_codec.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { RunConflictError } from "../harness/errors.ts";
import { newRun } from "../harness/state.ts";
import { hashOf } from "../subagents/describe_agent.ts";
import { settled, withServer } from "./server_helpers.ts";

const scope = { route: "runs", key: "k1" };
const lease = { leaseMs: 1_000 };

async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

Deno.test("a lapsed claim is taken over, and the first claimant can no longer record", () =>
  withKv(async (kv) => {
    const first = await claimIdempotencyKey(kv, scope, "h", { ...lease, now: 10_000 });
    assert.equal(first.kind, "claimed");
    const during = await claimIdempotencyKey(kv, scope, "h", { ...lease, now: 10_999 });
    assert.equal(during.kind, "pending");
    const after = await claimIdempotencyKey(kv, scope, "h", { ...lease, now: 11_000 });
    assert.equal(after.kind, "claimed");
    assert.ok(first.kind === "claimed" && after.kind === "claimed");
    const answer = { status: 201, body: { runId: "r1" }, runId: "r1" };
    const late = await recordIdempotentAnswer(kv, scope, first.versionstamp, "h", answer, {
      ttlMs: 5_000,
    });
    assert.equal(late, false, "a claim taken over records nothing");
    await releaseIdempotencyKey(kv, scope, first.versionstamp);
    assert.equal((await readIdempotencyRecord(kv, scope, 11_001))?.state, "pending");
    assert.ok(
      await recordIdempotentAnswer(kv, scope, after.versionstamp, "h", answer, {
        ttlMs: 5_000,
        now: 12_000,
      }),
    );
  }));

Deno.test("a lapsed claim of the same body is taken over with its attempt; else a new one", () =>
  withKv(async (kv) => {
    const attemptOf = async (request: string, now: number, attempt: string) => {
      const c = await claimIdempotencyKey(kv, scope, request, { ...lease, now, attempt });
      assert.equal(c.kind, "claimed");
      return c.kind === "claimed" ? c.attempt : undefined;
    };
    assert.equal(await attemptOf("h", 10_000, "a1"), "a1");
    // Lapsed (its process died): the retry works with the first attempt's id.
    assert.equal(await attemptOf("h", 11_000, "a2"), "a1");
    // Lapsed again, but another body: its own attempt.
    assert.equal(await attemptOf("other", 12_000, "a3"), "a3");
    // The stored claim is of version 2 and carries it.
    const stored = await readIdempotencyRecord(kv, scope, 12_001);
    assert.deepEqual(stored, {
      $schemaVersion: 2,
      state: "pending",
      request: "other",
      until: 13_000,
      attempt: "a3",
    });
  }));

Deno.test("a claim of version 1 (no attempt) is still read and taken over", () =>
  withKv(async (kv) => {
    await kv.set(
      idempotencyRecordKey("runs", "k1"),
      encodeValue({ $schemaVersion: 1, state: "pending", request: "h", until: 5 }),
    );
    const c = await claimIdempotencyKey(kv, scope, "h", { ...lease, now: 10, attempt: "a9" });
    assert.ok(c.kind === "claimed");
    assert.equal(c.attempt, "a9");
  }));

Deno.test("an answer counts until its deadline, then the key is free again", () =>
  withKv(async (kv) => {
    const claim = await claimIdempotencyKey(kv, scope, "h", { ...lease, now: 0 });
    assert.ok(claim.kind === "claimed");
    const answer = { status: 202, body: { ok: true }, runId: "r1", streamAfter: 4 };
    await recordIdempotentAnswer(kv, scope, claim.versionstamp, "h", answer, {
      ttlMs: 5_000,
      now: 100,
    });
    const kept = await claimIdempotencyKey(kv, scope, "other", { ...lease, now: 5_099 });
    assert.ok(kept.kind === "done");
    assert.deepEqual(kept.record.answer, answer);
    assert.equal(kept.record.request, "h");
    assert.equal(await readIdempotencyRecord(kv, scope, 5_100), null);
    const fresh = await claimIdempotencyKey(kv, scope, "other", { ...lease, now: 5_100 });
    assert.equal(fresh.kind, "claimed");
  }));

Deno.test("keys are scoped by route and run", () =>
  withKv(async (kv) => {
    const a = await claimIdempotencyKey(
      kv,
      { route: "messages", runId: "r1", key: "k" },
      "h",
      lease,
    );
    const b = await claimIdempotencyKey(
      kv,
      { route: "messages", runId: "r2", key: "k" },
      "h",
      lease,
    );
    const c = await claimIdempotencyKey(kv, { route: "fork", runId: "r1", key: "k" }, "h", lease);
    assert.deepEqual([a.kind, b.kind, c.kind], ["claimed", "claimed", "claimed"]);
  }));

Deno.test("a stored record is validated on load: a RecordError naming the field", () =>
  withKv(async (kv) => {
    await kv.set(
      idempotencyRecordKey("runs", "k1"),
      encodeValue({
        $schemaVersion: 1,
        state: "done",
        request: "h",
        answer: { status: "201" },
        at: 0,
        expiresAt: 1,
      }),
    );
    await assert.rejects(
      () => readIdempotencyRecord(kv, scope),
      (e) =>
        e instanceof RecordError && e.field === "answer.status" &&
        /^Stored idempotency record of key "k1" \(runs\) is invalid at "answer\.status"/.test(
          e.message,
        ),
    );
  }));

Deno.test("an unknown key of a stored record is named itself", () =>
  withKv(async (kv) => {
    await kv.set(
      idempotencyRecordKey("runs", "k1"),
      encodeValue({ $schemaVersion: 2, state: "pending", request: "h", until: 9, owner: "x" }),
    );
    await assert.rejects(
      () => readIdempotencyRecord(kv, scope),
      (e) => e instanceof RecordError && e.field === "owner",
    );
  }));

Deno.test("a body too large for one KV value is left out; the replay rebuilds it from the run", () =>
  withServer({}, async (s) => {
    const made = await s.call("POST", "/runs", { scenario: "plan" });
    const id = made.body.runId;
    await settled(s, id);
    // As if that answer had been recorded for key "big" (the request hash of its body).
    const big = { route: "runs", key: "big" };
    const request = await hashOf({ scenario: "plan" });
    const claim = await claimIdempotencyKey(s.kv, big, request, lease);
    assert.ok(claim.kind === "claimed");
    const body = { ...made.body, padding: "x".repeat(70_000) };
    const answer = { status: 201, body, location: `/runs/${id}`, runId: id, streamAfter: -1 };
    const ttl = { ttlMs: 60_000 };
    assert.ok(await recordIdempotentAnswer(s.kv, big, claim.versionstamp, request, answer, ttl));
    const record = await readIdempotencyRecord(s.kv, big);
    assert.ok(record?.state === "done");
    assert.equal(record.answer.body, undefined);
    const replay = await s.call("POST", "/runs", { scenario: "plan" }, {
      "Idempotency-Key": "big",
    });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(replay.headers.get("location"), `/runs/${id}`);
    assert.equal(replay.body.runId, id);
    assert.equal(replay.body.status, "completed", "rebuilt from the run as it is now");
    assert.equal((await s.call("GET", "/runs")).body.runs.length, 1);
  }));

Deno.test("an answer saved with its run lands with it or not at all", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const state = newRun("hi");
    await store.save(state);
    const mine = { route: "messages", runId: state.runId, key: "k-save" };
    const record = () => answerRecord(mine, "h", { status: 202, runId: state.runId }, ttl);
    const ttl = { ttlMs: 60_000 };
    // Another process saved the run meanwhile: this save is refused, and so is its answer.
    const other = new KvRunStore(kv);
    const theirs = await other.load(state.runId);
    theirs.messages.push({ role: "assistant", content: "theirs" });
    await other.save(theirs);
    const late = structuredClone(state);
    late.messages.push({ role: "assistant", content: "mine" });
    await assert.rejects(() => store.save(late, { answer: record() }), RunConflictError);
    assert.equal(await readIdempotencyRecord(kv, mine), null, "no answer without its work");
    // A save that lands records the answer in the same commit, with its expiry.
    const next = await store.load(state.runId);
    next.messages.push({ role: "user", content: "more" });
    await store.save(next, { answer: record() });
    const done = await readIdempotencyRecord(kv, mine);
    assert.ok(done?.state === "done");
    assert.equal(done.answer.status, 202);
    assert.equal(done.expiresAt - done.at, 60_000);
  }));
