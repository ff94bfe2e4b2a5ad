// POST /runs/:id/messages and POST /runs/:id/fork over a real KV and worker: a
// completed plan run answers a follow-up in the same run, its events going on from the
// last id; a fork at turn 1 is quoted, runs, replays the repeated read, same answer.
import assert from "node:assert/strict";
import { z } from "zod";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import {
  parseSse,
  readUntilStopped,
  settled,
  type TestServer,
  waitFor,
  withServer,
} from "./server_helpers.ts";

async function events(s: TestServer, id: string, after = -1) {
  const res = await s.app.request(`/runs/${id}/events?follow=false&after=${after}`);
  return parseSse(await res.text()).map((e) => ({ seq: Number(e.id), event: e.data }));
}

Deno.test("a completed plan run takes a follow-up over HTTP: same id, events go on, cost adds up", () =>
  withServer({}, async (s) => {
    const created = await s.call("POST", "/runs", { scenario: "plan" });
    const id = created.body.runId;
    const first = await settled(s, id);
    assert.equal(first.status, "completed");
    const before = await events(s, id);
    const last = before.at(-1)!;
    assert.equal(last.event.type, "run_stopped");
    const sent = await s.call("POST", `/runs/${id}/messages`, { content: "Which worker?" });
    assert.equal(sent.status, 202);
    assert.equal(sent.body.runId, id);
    assert.equal(sent.body.status, "running");
    const second = await settled(s, id);
    assert.equal(second.status, "completed");
    assert.equal(second.output, PLAN_ANSWER);
    assert.equal(second.turns, 4);
    assert.ok(second.costUsd > first.costUsd, `${second.costUsd} > ${first.costUsd}`);
    const after = await events(s, id, last.seq);
    assert.equal(after[0].seq, last.seq + 1, "numbering goes on from the last id");
    assert.equal(after[0].event.type, "user_message");
    assert.equal(after.at(-1)!.event.type, "run_stopped");
    assert.ok(after.every((e, i) => e.seq === last.seq + 1 + i && e.event.runId === id));
    const stopped = after.at(-1)!.event;
    assert.ok(stopped.type === "run_stopped" && stopped.costUsd === second.costUsd);
    const transcript = await s.call("GET", `/runs/${id}/messages`);
    assert.deepEqual(transcript.body.messages.at(-2), { role: "user", content: "Which worker?" });
  }));

Deno.test("POST /runs/:id/messages refuses a bad body, a run awaiting a verdict, an unknown run", () =>
  withServer({}, async (s) => {
    const created = await s.call("POST", "/runs", { scenario: "destructive" });
    const id = created.body.runId;
    const waiting = await settled(s, id);
    assert.equal(waiting.status, "interrupted");
    const refused = await s.call("POST", `/runs/${id}/messages`, { content: "hi" });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error.message, /awaits a verdict: decide the verdict first/);
    const empty = await s.call("POST", `/runs/${id}/messages`, { content: " " });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.field, "content");
    const extra = await s.call("POST", `/runs/${id}/messages`, { content: "x", tools: [] });
    assert.equal(extra.status, 400);
    const missing = await s.call("POST", `/runs/${crypto.randomUUID()}/messages`, {
      content: "hi",
    });
    assert.equal(missing.status, 404);
    assert.equal((await s.call("GET", `/runs/${id}`)).body.messageCount, waiting.messageCount);
  }));

Deno.test("POST /runs/:id/fork at turn 1 of plan: quoted, replayed at $0, same answer", () =>
  withServer({}, async (s) => {
    const created = await s.call("POST", "/runs", { scenario: "plan" });
    const id = created.body.runId;
    await settled(s, id);
    const forked = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1 });
    assert.equal(forked.status, 201);
    const forkId = forked.body.runId;
    assert.notEqual(forkId, id);
    assert.equal(forked.headers.get("location"), `/runs/${forkId}`);
    assert.deepEqual(forked.body.forkedFrom, { runId: id, turn: 1 });
    const { quote } = forked.body;
    assert.equal(quote.turn, 2);
    const done = await settled(s, forkId);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    assert.equal(done.toolRuns, 0);
    assert.deepEqual(done.forkedFrom, { runId: id, turn: 1 });
    const trace = (await events(s, forkId)).map((e) => e.event);
    const turn = trace.find((e) => e.type === "turn");
    assert.ok(turn?.type === "turn");
    assert.equal(turn.prompt_tokens, quote.promptTokens, "the quote is the provider's count");
    const result = trace.find((e) => e.type === "tool_result");
    assert.ok(result?.type === "tool_result");
    assert.deepEqual(result.replayed, { runId: id, callId: "call_1_0" });
  }));

Deno.test("POST /runs/:id/fork with start: false waits for a resume; bad turns are 400", () =>
  withServer({}, async (s) => {
    const created = await s.call("POST", "/runs", { scenario: "plan" });
    const id = created.body.runId;
    await settled(s, id);
    const bad = await s.call("POST", `/runs/${id}/fork`, { atTurn: 9 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, "atTurn");
    const last = await s.call("POST", `/runs/${id}/fork`, { atTurn: 3 });
    assert.equal(last.status, 400);
    assert.match(last.body.error.message, /final answer/);
    const hard = await s.call("POST", `/runs/${id}/fork`, {
      atTurn: 0,
      limits: { maxBudgetUsd: 0.001 },
    });
    assert.equal(hard.status, 201, "soft budget mode: the quote is for information");
    const quoted = await s.call("POST", `/runs/${id}/fork`, { atTurn: 0, start: false });
    assert.equal(quoted.status, 201);
    assert.equal(quoted.body.status, "interrupted");
    const forkId = quoted.body.runId;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await s.call("GET", `/runs/${forkId}`)).body.status, "interrupted");
    assert.equal((await s.call("POST", `/runs/${forkId}/resume`)).status, 202);
    const done = await settled(s, forkId);
    assert.equal(done.status, "completed");
    assert.equal(done.turns, 3);
    assert.equal(done.toolRuns, 0, "both reads replayed");
  }));

Deno.test("the fork and follow-up answers validate against the published schemas", () =>
  withServer({}, async (s) => {
    // deno-lint-ignore no-explicit-any
    const doc = (await s.call("GET", "/openapi.json")).body as any;
    const valid = (name: string, body: unknown) => {
      const schema = z.fromJSONSchema(doc.components.schemas[name]);
      const result = schema.safeParse(body);
      return result.success ? null : JSON.stringify(result.error.issues[0]);
    };
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const quoted = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1, quoteOnly: true });
    assert.equal(quoted.status, 200);
    assert.equal(valid("ForkQuote", quoted.body), null);
    assert.equal((await s.call("GET", "/runs")).body.runs.length, 1, "a quote creates nothing");
    const forked = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1 });
    assert.equal(valid("ForkCreated", forked.body), null);
    assert.deepEqual(forked.body.quote, quoted.body.quote);
    assert.notEqual(valid("ForkCreated", { ...forked.body, quote: { turn: -1 } }), null);
    const sent = await s.call("POST", `/runs/${id}/messages`, { content: "And?" });
    assert.equal(sent.status, 202);
    assert.equal(valid("Run", sent.body), null);
    await settled(s, id);
    await settled(s, forked.body.runId);
  }));

Deno.test("POST /runs/:id/messages with Accept: text/event-stream streams the answer from the next id", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "echo", task: "one" })).body.runId;
    await settled(s, id);
    const last = (await events(s, id)).at(-1)!;
    const res = await s.app.request(`/runs/${id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ content: "two" }),
    });
    assert.equal(res.status, 202);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const streamed = parseSse(await readUntilStopped(res));
    assert.equal(Number(streamed[0].id), last.seq + 1);
    assert.equal(streamed[0].data.type, "user_message");
    const stopped = streamed.at(-1)!.data;
    assert.ok(stopped.type === "run_stopped" && stopped.turns === 2);
    assert.equal((await settled(s, id)).output, "two");
  }));

Deno.test("a fork repeating research subagents serves their findings at $0: no child runs again", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "research" })).body.runId;
    const source = await settled(s, id);
    assert.equal(source.status, "completed");
    assert.ok(source.childCostUsd > 0);
    const forked = await s.call("POST", `/runs/${id}/fork`, { atTurn: 0 });
    assert.equal(forked.status, 201);
    const done = await settled(s, forked.body.runId);
    assert.equal(done.status, "completed");
    assert.equal(done.output, source.output);
    assert.equal(done.childCostUsd, 0, "no subagent ran again");
    assert.equal(done.toolRuns, 0);
    const tree = await s.call("GET", `/runs/${forked.body.runId}/tree`);
    assert.equal(tree.body.nodes.length, 1, "the fork has no children");
    const trace = (await events(s, forked.body.runId)).map((e) => e.event);
    const replayed = trace.filter((e) => e.type === "tool_result" && e.replayed);
    assert.equal(replayed.length, 2);
    assert.ok(done.costUsd < source.costUsd);
  }));

Deno.test("the run page offers Fork from here on each forkable turn, the reply box when stopped", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const parts = (await s.call("GET", `/ui/parts/runs/${id}`)).body;
    const turns = [...parts.transcript.matchAll(/data-action="fork"[^>]*data-turn="(\d+)"/g)]
      .map((m: RegExpMatchArray) => Number(m[1]));
    assert.deepEqual(turns, [0, 1, 2], "not after the final answer");
    assert.match(parts.controls, /data-action="reply"/);
    const waiting = (await s.call("POST", "/runs", { scenario: "destructive" })).body.runId;
    await settled(s, waiting);
    const held = (await s.call("GET", `/ui/parts/runs/${waiting}`)).body;
    assert.ok(!held.controls.includes('data-action="reply"'), "a verdict comes first");
    const heldTurns = [...held.transcript.matchAll(/data-turn="(\d+)"/g)].map((m) => m[1]);
    assert.deepEqual(heldTurns, ["0", "1"], "not at the turn whose call awaits a verdict");
  }));

Deno.test("a follow-up posted to one instance is executed by another's sweep; a Stop ends it, a new message goes on", () =>
  withServer({ schedule: () => Promise.resolve(), chunkMs: 40 }, async (s) => {
    // This app schedules nothing: only a worker's sweep (another instance's) executes runs.
    const id = (await s.call("POST", "/runs", { scenario: "echo", task: "one" })).body.runId;
    await s.worker.sweep(true);
    await settled(s, id);
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    assert.equal((await s.call("POST", `/runs/${id}/messages`, { content: long })).status, 202);
    await s.worker.sweep(true);
    await waitFor(
      async () =>
        (await s.store.events(id)).some((e) => e.event.type === "text_delta" && e.seq > 6) ||
        undefined,
      "the answer streaming",
    );
    assert.equal((await s.call("POST", `/runs/${id}/stop`, { reason: "enough" })).status, 202);
    const stopped = await settled(s, id);
    assert.equal(stopped.status, "interrupted");
    assert.deepEqual(stopped.interruption, { type: "cancelled", reason: "enough" });
    // The Stop that ended it is lifted by the next message.
    assert.equal((await s.call("POST", `/runs/${id}/messages`, { content: "three" })).status, 202);
    await s.worker.sweep(true);
    const done = await settled(s, id);
    assert.equal(done.status, "completed");
    assert.equal(done.output, "three");
  }));

Deno.test("a follow-up or a fork may not widen the agent's limits", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    const first = await settled(s, id);
    const before = (await s.call("GET", "/runs")).body.runs.length;
    const more = { maxBudgetUsd: 999 };
    const sent = await s.call("POST", `/runs/${id}/messages`, { content: "x", limits: more });
    assert.equal(sent.status, 400);
    assert.equal(sent.body.error.field, "limits.maxBudgetUsd");
    const forked = await s.call("POST", `/runs/${id}/fork`, { atTurn: 1, limits: more });
    assert.equal(forked.status, 400);
    assert.equal(forked.body.error.field, "limits.maxBudgetUsd");
    assert.equal((await s.call("GET", `/runs/${id}`)).body.messageCount, first.messageCount);
    assert.equal((await s.call("GET", "/runs")).body.runs.length, before, "no fork made");
  }));
