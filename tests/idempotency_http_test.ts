// Idempotency-Key on POST /runs, POST /runs/:id/messages and POST /runs/:id/fork, and on the
// controls (approve, reject, resume, stop), over a real KV and worker: a retry gets the first
// answer (Idempotent-Replayed: true) and the work is done once; another body is a 422; racing requests make one run; a bad key is a 400; a
// refused request frees its key; the answer is kept 24 h (the SQLite row's expiry).
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { readIdempotencyRecord } from "../kv/idempotency.ts";
import { idempotencyRecordKey } from "../kv/keys.ts";
import { encodeValue } from "../kv/value_codec.ts";
import { readStop } from "../kv/stop_record.ts";
import { IDEMPOTENCY_TTL_MS } from "../server/idempotency.ts";
import { DECLINED_ANSWER, DELETED_ANSWER } from "../testing/scenarios.ts";
import { parseSse, settled, type TestServer, waitFor, withServer } from "./server_helpers.ts";

const key = (k: string) => ({ "Idempotency-Key": k });

async function runCount(s: TestServer): Promise<number> {
  return (await s.call("GET", "/runs?limit=100")).body.runs.length;
}

/** How many of run `id`'s stored events are of `type` (and, for tools, of `toolName`). */
async function eventCount(s: TestServer, id: string, type: string, toolName?: string) {
  const events = (await s.store.events(id)).map((e) =>
    e.event as { type: string; toolName?: string }
  );
  return events.filter((e) => e.type === type && (!toolName || e.toolName === toolName)).length;
}

/** A destructive run awaiting its verdict on delete_file: its id and the call's id. */
async function awaitingVerdict(s: TestServer): Promise<{ id: string; callId: string }> {
  const id = (await s.call("POST", "/runs", { scenario: "destructive" })).body.runId;
  const waiting = await settled(s, id);
  assert.equal(waiting.interruption.type, "approval");
  return { id, callId: waiting.interruption.callId };
}

Deno.test("POST /runs retried with its key: the same run, one run, marked as a replay", () =>
  withServer({}, async (s) => {
    const first = await s.call("POST", "/runs", { scenario: "plan" }, key("create-1"));
    assert.equal(first.status, 201);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    const again = await s.call("POST", "/runs", { scenario: "plan" }, key("create-1"));
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(again.body, first.body, "the same body, as first answered");
    assert.equal(again.headers.get("location"), `/runs/${first.body.runId}`);
    assert.equal(await runCount(s), 1);
    // Another key is another request.
    const other = await s.call("POST", "/runs", { scenario: "plan" }, key("create-2"));
    assert.notEqual(other.body.runId, first.body.runId);
    assert.equal(await runCount(s), 2);
    await settled(s, first.body.runId);
    await settled(s, other.body.runId);
  }));

Deno.test("a follow-up retried after its answer completed is appended once", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const sent = await s.call("POST", `/runs/${id}/messages`, { content: "Which worker?" }, {
      ...key("reply-1"),
    });
    assert.equal(sent.status, 202);
    const answered = await settled(s, id);
    assert.equal(answered.status, "completed");
    const retry = await s.call("POST", `/runs/${id}/messages`, { content: "Which worker?" }, {
      ...key("reply-1"),
    });
    assert.equal(retry.status, 202);
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(retry.body, sent.body);
    const after = await s.call("GET", `/runs/${id}`);
    assert.equal(after.body.status, "completed", "the retry did not start it again");
    assert.equal(after.body.turns, answered.turns);
    const messages = (await s.call("GET", `/runs/${id}/messages`)).body.messages;
    const asked = messages.filter((m: { content?: string }) => m.content === "Which worker?");
    assert.equal(asked.length, 1);
    // The key is the run's: the same key on another run's follow-up is another request.
    const other = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, other);
    const there = await s.call("POST", `/runs/${other}/messages`, { content: "Which worker?" }, {
      ...key("reply-1"),
    });
    assert.equal(there.status, 202);
    assert.equal(there.headers.get("idempotent-replayed"), null);
    await settled(s, other);
  }));

Deno.test("a follow-up replayed as a stream starts at the follow-up's first event", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const sent = await s.call("POST", `/runs/${id}/messages`, { content: "And then?" }, {
      ...key("stream-1"),
    });
    assert.equal(sent.status, 202);
    await settled(s, id);
    const res = await s.app.request(`/runs/${id}/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...key("stream-1"),
      },
      body: JSON.stringify({ content: "And then?" }),
    });
    assert.equal(res.status, 202);
    assert.equal(res.headers.get("idempotent-replayed"), "true");
    // The run completed: its stream ends after its run_stopped.
    const events = parseSse(await res.text());
    assert.equal(events[0].data.type, "user_message");
    assert.equal(events.at(-1)!.data.type, "run_stopped");
  }));

Deno.test("POST /runs/:id/fork retried with its key: the same fork, made once", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const forked = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1 }, key("fork-1"));
    assert.equal(forked.status, 201);
    const again = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1 }, key("fork-1"));
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.body.runId, forked.body.runId);
    assert.deepEqual(again.body.quote, forked.body.quote);
    assert.equal(again.headers.get("location"), `/runs/${forked.body.runId}`);
    assert.equal(await runCount(s), 2);
    await settled(s, forked.body.runId);
  }));

Deno.test("an approve retried with its key gets the first 202 again; the call is approved once", () =>
  withServer({}, async (s) => {
    const { id, callId } = await awaitingVerdict(s);
    const path = `/runs/${id}/approve`;
    // Refused for the run's state (no such call awaits): the key stays free.
    const wrong = await s.call("POST", path, { callId: "call_9_9" }, key("approve-1"));
    assert.equal(wrong.status, 409);
    assert.equal(wrong.body.error.code, "run_state");
    assert.equal(
      await readIdempotencyRecord(s.kv, { route: "approve", runId: id, key: "approve-1" }),
      null,
    );
    const first = await s.call("POST", path, { callId }, key("approve-1"));
    assert.equal(first.status, 202);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    // Retried at once (the tree runs) and after it completed: the first answer, not a 409.
    const retry = await s.call("POST", path, { callId }, key("approve-1"));
    assert.equal(retry.status, 202, JSON.stringify(retry.body));
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(retry.body, first.body);
    const done = await settled(s, id);
    assert.equal(done.status, "completed");
    assert.equal(done.output, DELETED_ANSWER);
    const late = await s.call("POST", path, { callId }, key("approve-1"));
    assert.equal(late.status, 202);
    assert.deepEqual(late.body, first.body);
    const other = await s.call("POST", path, { callId: "call_0_0" }, key("approve-1"));
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, "idempotency_key_reused");
    assert.match(other.body.error.message, /"approve-1" was used with another body for POST/);
    // Approved once: the tool ran once, the run stopped twice (awaiting, then completed).
    assert.equal(await eventCount(s, id, "tool_start", "delete_file"), 1);
    assert.equal(await eventCount(s, id, "run_stopped"), 2);
    assert.equal((await s.call("GET", `/runs/${id}`)).body.turns, done.turns);
  }));

Deno.test("approves racing with one key give one verdict; the others are told it is in progress", () =>
  withServer({}, async (s) => {
    const { id, callId } = await awaitingVerdict(s);
    const answers = await Promise.all(
      Array.from(
        { length: 5 },
        () => s.call("POST", `/runs/${id}/approve`, { callId }, key("approve-race")),
      ),
    );
    const given = answers.filter((a) => a.status === 202);
    assert.equal(given.filter((a) => !a.headers.get("idempotent-replayed")).length, 1);
    for (const a of given) assert.deepEqual(a.body, given[0].body);
    for (const a of answers.filter((a) => a.status !== 202)) {
      assert.equal(a.status, 409);
      assert.equal(a.body.error.code, "idempotency_in_progress", a.body.error.message);
      assert.equal(a.headers.get("retry-after"), "1");
    }
    assert.equal((await settled(s, id)).status, "completed");
    assert.equal(await eventCount(s, id, "tool_start", "delete_file"), 1);
  }));

Deno.test("a reject retried with its key is replayed; with another reason it is a 422", () =>
  withServer({}, async (s) => {
    const { id, callId } = await awaitingVerdict(s);
    const path = `/runs/${id}/reject`;
    const body = { callId, reason: "keep the access logs" };
    const first = await s.call("POST", path, body, key("reject-1"));
    assert.equal(first.status, 202);
    assert.equal((await settled(s, id)).output, DECLINED_ANSWER);
    const retry = await s.call("POST", path, body, key("reject-1"));
    assert.equal(retry.status, 202, JSON.stringify(retry.body));
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(retry.body, first.body);
    const other = await s.call("POST", path, { callId, reason: "no" }, key("reject-1"));
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, "idempotency_key_reused");
    const { messages } = (await s.call("GET", `/runs/${id}/messages`)).body;
    const told = messages.filter((m: { tool_call_id?: string }) => m.tool_call_id === callId);
    assert.equal(told.length, 1);
    assert.match(told[0].content, /keep the access logs/);
  }));

Deno.test("a Stop and a resume retried with their keys are replayed; a late Stop retry stops nothing", () =>
  withServer({ scan: { ms: 1500 } }, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "slow" })).body.runId;
    await waitFor(
      async () => (await eventCount(s, id, "tool_progress")) > 0 || undefined,
      "a scan",
    );
    const stop = await s.call("POST", `/runs/${id}/stop`, { reason: "enough" }, key("ctl-1"));
    assert.equal(stop.status, 202);
    assert.deepEqual((await settled(s, id)).interruption, { type: "cancelled", reason: "enough" });
    const stopAgain = await s.call("POST", `/runs/${id}/stop`, { reason: "enough" }, key("ctl-1"));
    assert.equal(stopAgain.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(stopAgain.body, stop.body);
    assert.equal((await readStop(s.kv, id))?.at, Date.parse(stop.body.at), "recorded once");
    // The same key on another route is another request.
    const resumed = await s.call("POST", `/runs/${id}/resume`, undefined, key("ctl-1"));
    assert.equal(resumed.status, 202);
    assert.equal(resumed.headers.get("idempotent-replayed"), null);
    const resumeAgain = await s.call("POST", `/runs/${id}/resume`, undefined, key("ctl-1"));
    assert.equal(resumeAgain.status, 202, JSON.stringify(resumeAgain.body));
    assert.equal(resumeAgain.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(resumeAgain.body, resumed.body);
    // The Stop's retry arriving while the resumed tree runs is its first answer, not a Stop.
    const stale = await s.call("POST", `/runs/${id}/stop`, { reason: "enough" }, key("ctl-1"));
    assert.equal(stale.headers.get("idempotent-replayed"), "true");
    assert.equal((await settled(s, id)).status, "completed");
    assert.equal(await readStop(s.kv, id), null);
    assert.equal(await eventCount(s, id, "run_stopped"), 2);
  }));

Deno.test("the same key with another body is a 422 naming the key; nothing is created", () =>
  withServer({}, async (s) => {
    const first = await s.call("POST", "/runs", { task: "Find the timeout" }, key("k-422"));
    assert.equal(first.status, 201);
    const other = await s.call("POST", "/runs", { task: "Find the error" }, key("k-422"));
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, "idempotency_key_reused");
    assert.match(other.body.error.message, /Idempotency-Key "k-422" was used with another body/);
    assert.equal(await runCount(s), 1);
    // Equal bodies are equal requests however they are spelled.
    const spaced = await s.call("POST", "/runs", '{ "task" : "Find the timeout" }', key("k-422"));
    assert.equal(spaced.status, 201);
    assert.equal(spaced.body.runId, first.body.runId);
    await settled(s, first.body.runId);
  }));

Deno.test("requests racing with one key make one run; the others are told it is in progress", () =>
  withServer({}, async (s) => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => s.call("POST", "/runs", { scenario: "plan" }, key("race"))),
    );
    const made = answers.filter((a) => a.status === 201);
    assert.ok(made.length >= 1, JSON.stringify(answers.map((a) => a.status)));
    assert.equal(new Set(made.map((a) => a.body.runId)).size, 1);
    for (const a of answers.filter((a) => a.status !== 201)) {
      assert.equal(a.status, 409);
      assert.equal(a.body.error.code, "idempotency_in_progress");
      assert.equal(a.headers.get("retry-after"), "1");
    }
    assert.equal(await runCount(s), 1);
    await settled(s, made[0].body.runId);
  }));

Deno.test("a bad Idempotency-Key is a 400 naming the header; nothing is created", () =>
  withServer({}, async (s) => {
    for (const bad of ["", "x".repeat(256), "tab\there", "caf\u00e9"]) {
      const res = await s.call("POST", "/runs", { scenario: "plan" }, key(bad));
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.error.field, "Idempotency-Key");
      assert.match(res.body.error.message, /1 to 255 printable ASCII characters/);
    }
    const longest = await s.call("POST", "/runs", { scenario: "plan" }, key("~".repeat(255)));
    assert.equal(longest.status, 201);
    assert.equal(await runCount(s), 1);
    await settled(s, longest.body.runId);
  }));

Deno.test("a refused request frees its key: the fixed request with it is done", () =>
  withServer({}, async (s) => {
    const refused = await s.call("POST", "/runs", { agent: "nobody", task: "hi" }, key("fix"));
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.field, "agent");
    const fixed = await s.call("POST", "/runs", { task: "Find the timeout" }, key("fix"));
    assert.equal(fixed.status, 201);
    const id = fixed.body.runId;
    await settled(s, id);
    // A follow-up refused for the run's state (a verdict awaits) leaves its key free too.
    const waiting = (await s.call("POST", "/runs", { scenario: "destructive" })).body.runId;
    assert.equal((await settled(s, waiting)).status, "interrupted");
    const early = await s.call("POST", `/runs/${waiting}/messages`, { content: "hi" }, key("r"));
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, "run_state");
    const scope = { route: "messages", runId: waiting, key: "r" };
    assert.equal(await readIdempotencyRecord(s.kv, scope), null);
  }));

Deno.test("an unreadable record is a 500 naming the field, and is never overwritten", () =>
  withServer({}, async (s) => {
    const where = idempotencyRecordKey("runs", "broken");
    const stored = encodeValue({ $schemaVersion: 99, state: "done" });
    await s.kv.set(where, stored);
    const res = await s.call("POST", "/runs", { scenario: "plan" }, key("broken"));
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, "record_invalid");
    assert.match(res.body.error.message, /idempotency record of key "broken" \(runs\)/);
    assert.deepEqual((await s.kv.get(where)).value, stored);
    assert.equal(await runCount(s), 0);
  }));

Deno.test("an answer is kept 24 h: its record's deadline and the KV row's expiry", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-idempotency-" });
  const path = `${dir}/kv.sqlite3`;
  try {
    let id = "";
    const before = Date.now();
    await withServer({ kvPath: path }, async (s) => {
      const made = await s.call("POST", "/runs", { scenario: "plan" }, key("kept"));
      id = made.body.runId;
      const record = await readIdempotencyRecord(s.kv, { route: "runs", key: "kept" });
      assert.ok(record?.state === "done");
      assert.equal(record.expiresAt - record.at, IDEMPOTENCY_TTL_MS);
      assert.equal(record.answer.runId, id);
      await settled(s, id);
    });
    // KV's own expiry, as Deno's SQLite backend stores it (a run's keys have none).
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const rows = db.prepare("select expiration_ms from kv where expiration_ms >= 0").all();
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const at = Number(rows[0].expiration_ms);
      assert.ok(at >= before + IDEMPOTENCY_TTL_MS && at <= Date.now() + IDEMPOTENCY_TTL_MS);
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the OpenAPI document names the key, the replay header and the 422 on every POST", () =>
  withServer({}, async (s) => {
    // deno-lint-ignore no-explicit-any
    const doc = (await s.call("GET", "/openapi.json")).body as any;
    const routes = [["/runs", "201"], ["/runs/{id}/messages", "202"], ["/runs/{id}/fork", "201"]];
    for (const control of ["approve", "reject", "resume", "stop"]) {
      routes.push([`/runs/{id}/${control}`, "202"]);
    }
    for (const [path, ok] of routes) {
      const op = doc.paths[path].post;
      const names = op.parameters.map((p: { name: string }) => p.name);
      assert.ok(names.includes("Idempotency-Key"), `${path}: ${names}`);
      assert.ok(op.responses[ok].headers["Idempotent-Replayed"], path);
      assert.match(op.responses["422"].description, /idempotency_key_reused/);
      assert.match(op.responses["409"].description, /idempotency_in_progress/);
    }
  }));
