// A keyed POST /runs (or fork) whose process died after it made the run and before it
// recorded its answer (the claim left pending, then lapsed): the retry finds that run, not a
// second. A follow-up records its answer in its own commit: a retry after a crash is a replay.
import assert from "node:assert/strict";
import { readIdempotencyRecord } from "../kv/idempotency.ts";
import { idempotencyRecordKey } from "../kv/keys.ts";
import { encodeValue } from "../kv/value_codec.ts";
import type { Worker } from "../runtime/worker.ts";
import { settled, type TestServer, withServer } from "./server_helpers.ts";

const key = { "Idempotency-Key": "create-crash" };

/**
 * What a process that died after the work left: its claim of `scope`, pending,
 * lapsed, with the `attempt` it worked with (the id of the run it made).
 */
async function lapsedClaim(
  s: TestServer,
  scope: { route: string; runId?: string; key: string },
  attempt: string,
) {
  const done = await readIdempotencyRecord(s.kv, scope);
  assert.equal(done?.state, "done");
  await s.kv.set(
    idempotencyRecordKey(scope.route, scope.key, scope.runId),
    encodeValue({ $schemaVersion: 2, state: "pending", request: done!.request, until: 1, attempt }),
  );
}

Deno.test("POST /runs: a crash between the run and its record, then a retry: one run", () =>
  withServer({}, async (s) => {
    const first = await s.call("POST", "/runs", { scenario: "plan" }, key);
    assert.equal(first.status, 201);
    await lapsedClaim(s, { route: "runs", key: key["Idempotency-Key"] }, first.body.runId);
    const retry = await s.call("POST", "/runs", { scenario: "plan" }, key);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(
      retry.headers.get("idempotent-replayed"),
      null,
      "not a replay: the work ran again",
    );
    assert.equal(retry.body.runId, first.body.runId, "the run the first attempt made");
    assert.equal(retry.headers.get("location"), `/runs/${first.body.runId}`);
    const runs = (await s.call("GET", "/runs?limit=100")).body.runs;
    assert.deepEqual(runs.map((r: { runId: string }) => r.runId), [first.body.runId]);
    // Its answer is recorded now: a third attempt is a replay.
    const third = await s.call("POST", "/runs", { scenario: "plan" }, key);
    assert.equal(third.headers.get("idempotent-replayed"), "true");
    assert.equal(third.body.runId, first.body.runId);
    // Another body with the same key stays refused, and no key makes runs as before.
    const other = await s.call("POST", "/runs", { scenario: "echo" }, key);
    assert.equal(other.status, 422);
    const plain = await s.call("POST", "/runs", { scenario: "plan" });
    assert.notEqual(plain.body.runId, first.body.runId);
  }));

Deno.test("POST /runs/:id/fork: a crash before its record, then a retry: the same fork", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const first = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1 }, key);
    assert.equal(first.status, 201);
    await lapsedClaim(
      s,
      { route: "fork", runId: id, key: key["Idempotency-Key"] },
      first.body.runId,
    );
    const retry = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1 }, key);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.runId, first.body.runId, "the fork the first attempt made");
    assert.deepEqual(retry.body.quote, first.body.quote);
    const runs = (await s.call("GET", "/runs?limit=100")).body.runs;
    assert.equal(runs.length, 2, "the source and one fork");
    await settled(s, first.body.runId);
  }));

Deno.test("POST /runs/:id/messages: a crash right after the message, a retry: appended once", () => {
  // The process dies after the follow-up's commit, before it answers; another process then
  // resumes the run to its end (a sweep), and the client retries with its key.
  let worker: Worker | undefined;
  let kv: Deno.Kv | undefined;
  let dying = false;
  let recordAtDeath: string | undefined;
  const content = "Which worker?";
  return withServer({
    schedule: async (runId) => {
      if (!dying) return await worker!.schedule(runId);
      dying = false;
      const scope = { route: "messages", runId, key: key["Idempotency-Key"] };
      recordAtDeath = (await readIdempotencyRecord(kv!, scope))?.state;
      throw new Error("the process died here");
    },
  }, async (s) => {
    worker = s.worker;
    kv = s.kv;
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    dying = true;
    const first = await s.call("POST", `/runs/${id}/messages`, { content }, key);
    assert.equal(first.status, 500, JSON.stringify(first.body));
    assert.equal(recordAtDeath, "done", "the answer was recorded with the message");
    await s.worker.schedule(id);
    const answered = await settled(s, id);
    assert.equal(answered.status, "completed");
    const retry = await s.call("POST", `/runs/${id}/messages`, { content }, key);
    assert.equal(retry.status, 202, JSON.stringify(retry.body));
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.equal(retry.body.status, "running", "the answer the first attempt would have given");
    const after = await settled(s, id);
    assert.equal(after.turns, answered.turns, "the retry started nothing");
    const messages = (await s.call("GET", `/runs/${id}/messages`)).body.messages;
    const asked = messages.filter((m: { content?: string }) => m.content === content);
    assert.equal(asked.length, 1, "appended once");
  });
});

Deno.test("a key used again after its answer expired is a new request: a new run", () =>
  withServer({}, async (s) => {
    const first = await s.call("POST", "/runs", { scenario: "plan" }, key);
    assert.equal(first.status, 201);
    // KV deletes the record once its 24 h are up (expireIn): as if they were.
    await s.kv.delete(idempotencyRecordKey("runs", key["Idempotency-Key"]));
    const later = await s.call("POST", "/runs", { scenario: "plan" }, key);
    assert.equal(later.status, 201);
    assert.notEqual(later.body.runId, first.body.runId, "not yesterday's run");
    assert.equal((await s.call("GET", "/runs?limit=100")).body.runs.length, 2);
    await settled(s, later.body.runId);
  }));
