// The HTTP API through app.request() (no ports), over a real in-memory KV
// with a real queue worker executing runs in the background.
import assert from "node:assert/strict";
import { DECLINED_ANSWER, DELETED_ANSWER, PLAN_ANSWER } from "../testing/scenarios.ts";
import {
  kvSnapshot,
  parseSse,
  readUntilStopped,
  settled,
  waitFor,
  withServer,
} from "./server_helpers.ts";
import { sleep } from "../harness/sleep.ts";

Deno.test("a plan run is created (201) and completes in the background", () =>
  withServer({}, async (s) => {
    const res = await s.call("POST", "/runs", {
      task: "Which file mentions a timeout?",
      scenario: "plan",
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, "running");
    assert.equal(res.headers.get("location"), `/runs/${res.body.runId}`);
    assert.match(res.body.runId, /^[0-9a-f-]{36}$/);
    const done = await settled(s, res.body.runId);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    assert.equal(done.turns, 3);
    const messages = await s.call("GET", `/runs/${res.body.runId}/messages`);
    // The demo agent's instructions, the task, then 2 tool turns and the answer.
    assert.equal(messages.body.messages.length, 7);
    assert.equal(messages.body.messages[0].role, "system");
    const list = await s.call("GET", "/runs?status=completed");
    assert.deepEqual(list.body.runs.map((r: { runId: string }) => r.runId), [res.body.runId]);
    assert.equal((await s.call("GET", "/runs?status=running")).body.runs.length, 0);
  }));

Deno.test("GET /runs lists newest first", () =>
  withServer({}, async (s) => {
    const ids: string[] = [];
    for (const task of ["one", "two", "three"]) {
      ids.push((await s.call("POST", "/runs", { task, scenario: "echo" })).body.runId);
      await sleep(3);
    }
    for (const id of ids) await settled(s, id);
    const list = await s.call("GET", "/runs");
    assert.deepEqual(list.body.runs.map((r: { runId: string }) => r.runId), ids.reverse());
  }));

Deno.test("a destructive run awaits approval; approve -> it completes and the file is deleted", () =>
  withServer({}, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "Free space", scenario: "destructive" })).body.runId;
    const waiting = await settled(s, id);
    assert.equal(waiting.status, "interrupted");
    assert.equal(waiting.interruption.type, "approval");
    assert.equal(waiting.interruption.toolName, "delete_file");
    const res = await s.call("POST", `/runs/${id}/approve`, {
      callId: waiting.interruption.callId,
    });
    assert.equal(res.status, 202);
    const done = await settled(s, id);
    assert.equal(done.status, "completed");
    assert.equal(done.output, DELETED_ANSWER);
  }));

Deno.test("reject with a reason: the words are in the transcript and the model declines", () =>
  withServer({}, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "Free space", scenario: "destructive" })).body.runId;
    const waiting = await settled(s, id);
    const res = await s.call("POST", `/runs/${id}/reject`, {
      callId: waiting.interruption.callId,
      reason: "keep the access logs for the audit",
    });
    assert.equal(res.status, 202);
    const done = await settled(s, id);
    assert.equal(done.output, DECLINED_ANSWER);
    const { messages } = (await s.call("GET", `/runs/${id}/messages`)).body;
    const tool = messages.find((m: { tool_call_id?: string }) =>
      m.tool_call_id === waiting.interruption.callId
    );
    assert.match(tool.content, /keep the access logs for the audit/);
  }));

Deno.test("an approval awaited in a child run is given at the root; the tree completes", () =>
  withServer({}, async (s) => {
    const res = await s.call("POST", "/runs", {
      task: "Tidy up.",
      scenario: "research-approval",
    });
    // The scenario needs research children that may delete: the demo-cleanup agent.
    assert.equal(res.body.agent, "demo-cleanup");
    const id = res.body.runId;
    const waiting = await settled(s, id);
    assert.equal(waiting.interruption.type, "approval");
    assert.notEqual(waiting.interruption.runId, id); // held by the child
    const ok = await s.call("POST", `/runs/${id}/approve`, { callId: waiting.interruption.callId });
    assert.equal(ok.status, 202);
    const done = await settled(s, id);
    assert.equal(done.status, "completed");
    assert.match(done.output, new RegExp(DELETED_ANSWER));
    const nodes = (await s.call("GET", `/runs/${id}/tree`)).body.nodes;
    assert.deepEqual(nodes.map((n: { status: string }) => n.status), ["completed", "completed"]);
  }));

Deno.test("a verdict on a call not awaiting one is 409 and writes nothing", () =>
  withServer({}, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "Free space", scenario: "destructive" })).body.runId;
    const waiting = await settled(s, id);
    const before = await kvSnapshot(s.kv);
    const wrong = await s.call("POST", `/runs/${id}/approve`, { callId: "call_9_9" });
    assert.equal(wrong.status, 409);
    assert.equal(wrong.body.error.code, "run_state");
    assert.match(wrong.body.error.message, new RegExp(waiting.interruption.callId));
    assert.deepEqual(await kvSnapshot(s.kv), before);

    await s.call("POST", `/runs/${id}/approve`, { callId: waiting.interruption.callId });
    await settled(s, id);
    const after = await kvSnapshot(s.kv);
    const again = await s.call("POST", `/runs/${id}/reject`, {
      callId: waiting.interruption.callId,
    });
    assert.equal(again.status, 409);
    assert.equal((await s.call("POST", `/runs/${id}/resume`)).status, 409); // completed
    assert.deepEqual(await kvSnapshot(s.kv), after);
  }));

Deno.test("an unknown run is 404 on every route", () =>
  withServer({}, async (s) => {
    const id = crypto.randomUUID();
    for (
      const [method, path, body] of [
        ["GET", `/runs/${id}`],
        ["GET", `/runs/${id}/messages`],
        ["GET", `/runs/${id}/tree`],
        ["GET", `/runs/${id}/events`],
        ["POST", `/runs/${id}/approve`, { callId: "c1" }],
        ["POST", `/runs/${id}/reject`, { callId: "c1" }],
        ["POST", `/runs/${id}/resume`],
        ["POST", `/runs/${id}/stop`, { reason: "x" }],
      ] as const
    ) {
      const res = await s.call(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, "run_not_found");
    }
    assert.deepEqual(await kvSnapshot(s.kv), []);
  }));

Deno.test("bad input is a 400 naming the field, and nothing is written", () =>
  withServer({}, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "Free space", scenario: "destructive" })).body.runId;
    await settled(s, id);
    const before = await kvSnapshot(s.kv);
    const cases: [string, string, unknown, string][] = [
      ["POST", "/runs", {}, "task"],
      ["POST", "/runs", { task: "   " }, "task"],
      ["POST", "/runs", { task: "x", limits: { maxTurns: 0 } }, "limits.maxTurns"],
      ["POST", "/runs", { task: "x", limits: { maxBudgetUsd: -1 } }, "limits.maxBudgetUsd"],
      ["POST", "/runs", { task: "x", bogus: 1 }, "bogus"],
      ["POST", "/runs", { task: "x", scenario: "no-such-scenario" }, "scenario"],
      ["POST", "/runs", { task: "x", scenario: "plan", model: "plan" }, "model"],
      ["POST", "/runs", { task: "x", options: { researchDepth: 9 } }, "options.researchDepth"],
      ["POST", "/runs", "{not json", "body"],
      ["POST", "/runs", [], "body"],
      ["GET", "/runs?status=nope", undefined, "status"],
      ["GET", "/runs?limit=0", undefined, "limit"],
      ["GET", "/runs/bad%20id", undefined, "id"],
      ["POST", `/runs/${id}/approve`, {}, "callId"],
      ["POST", `/runs/${id}/approve`, { callId: 7 }, "callId"],
      ["POST", `/runs/${id}/reject`, { callId: "c", reason: 3 }, "reason"],
      ["POST", `/runs/${id}/stop`, { reason: "" }, "reason"],
      ["POST", `/runs/${id}/resume`, { limits: { maxTurns: "x" } }, "limits.maxTurns"],
      ["GET", `/runs/${id}/events?after=x`, undefined, "after"],
      // Only decimal digits: not read as 1 or 10 (nor 16 runs).
      ["GET", `/runs/${id}/events?follow=false&after=0x1`, undefined, "after"],
      ["GET", `/runs/${id}/events?follow=false&after=1e1`, undefined, "after"],
      ["GET", "/runs?limit=0x10", undefined, "limit"],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await s.call(method, path, body);
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.code, "bad_request");
      assert.equal(res.body.error.field, field, `${method} ${path} ${JSON.stringify(body)}`);
      assert.ok(res.body.error.message.startsWith(`${field}: `), res.body.error.message);
    }
    // Bytes that are not UTF-8 are refused, not stored as replacement characters.
    const latin1 = await s.app.request("/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Uint8Array([...new TextEncoder().encode('{"task":"caf'), 0xe9, 0x22, 0x7d]),
    });
    assert.equal(latin1.status, 400);
    assert.equal((await latin1.json()).error.message, "body: not valid UTF-8");
    // An unknown key inside limits is named as one (it was "expected an object").
    const extra = await s.call("POST", "/runs", { task: "x", limits: { maxTurns: 5, foo: 1 } });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.field, "limits.foo");
    assert.match(extra.body.error.message, /^limits\.foo: Unrecognized key: "foo"$/);
    for (const lastId of ["abc", "0x10", "1e3", "-2"]) {
      const sse = await s.call("GET", `/runs/${id}/events?follow=false`, undefined, {
        "last-event-id": lastId,
      });
      assert.equal(sse.status, 400, lastId);
      assert.equal(sse.body.error.field, "Last-Event-ID");
    }
    assert.deepEqual(await kvSnapshot(s.kv), before);
  }));

Deno.test("with a token, every route needs it (401 without or wrong, constant-time compare)", () =>
  withServer({ token: "s3cret-token" }, async (s) => {
    for (const path of ["/runs", "/openapi.json", "/v1/models", `/runs/${crypto.randomUUID()}`]) {
      const none = await s.app.request(path);
      assert.equal(none.status, 401, path);
      assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="reins"');
      assert.equal((await none.json()).error.code, "unauthorized");
      const wrong = await s.app.request(path, {
        headers: { authorization: "Bearer s3cret-tokem" },
      });
      assert.equal(wrong.status, 401, path);
      await wrong.body?.cancel();
    }
    const bad = await s.app.request("/runs", {
      method: "POST",
      body: JSON.stringify({ task: "x" }),
    });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    assert.deepEqual(await kvSnapshot(s.kv), []);
    assert.equal((await s.call("GET", "/runs")).status, 200);
    assert.equal((await s.call("GET", "/v1/models")).status, 200);
  }));

Deno.test("SSE: stored events in order with ids, resuming after Last-Event-ID, then live ones", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { task: "t", scenario: "plan" })).body.runId;
    await settled(s, id);
    const res = await s.app.request(`/runs/${id}/events?follow=false`);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const all = parseSse(await res.text());
    assert.deepEqual(all.map((e) => e.id), all.map((_, i) => String(i)));
    assert.equal(all.at(-1)?.data.type, "run_stopped");
    assert.ok(all.length >= 6);
    const rest = parseSse(
      await (await s.app.request(`/runs/${id}/events?follow=false`, {
        headers: { "last-event-id": "2" },
      })).text(),
    );
    assert.deepEqual(rest, all.slice(3));
    assert.deepEqual(
      parseSse(await (await s.app.request(`/runs/${id}/events?follow=0&after=4`)).text()),
      all.slice(5),
    );
    // An empty position is none, in the query as in the header: from event 0.
    for (const query of ["after=", "after=%20"]) {
      const from = await s.app.request(`/runs/${id}/events?follow=0&${query}`, {
        headers: { "last-event-id": "" },
      });
      assert.deepEqual(parseSse(await from.text()), all, query);
    }

    // Live: a slow run streamed from its start until run_stopped, then the client leaves.
    const slow = (await s.call("POST", "/runs", { task: "scan", scenario: "slow" })).body.runId;
    const live = await s.app.request(`/runs/${slow}/events`);
    const text = await readUntilStopped(live);
    const events = parseSse(text);
    assert.deepEqual(events.map((e) => e.id), events.map((_, i) => String(i)));
    assert.ok(events.some((e) => e.data.type === "tool_progress"));
    assert.equal(events.at(-1)?.data.type, "run_stopped");
  }));

Deno.test("a Stop interrupts a slow run tree: every node interrupted, no tool still running", () =>
  withServer({ scan: { ms: 3000 } }, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "Scan.", scenario: "research-slow" })).body.runId;
    // Both children are scanning.
    await waitFor(async () => {
      const nodes = (await s.call("GET", `/runs/${id}/tree`)).body.nodes;
      if (nodes.length !== 3) return undefined;
      for (const n of nodes.slice(1)) {
        const ev = await s.store.events(n.runId);
        if (!ev.some((e) => e.event.type === "tool_progress")) return undefined;
      }
      return true;
    }, "children to scan");
    const stopped = await s.call("POST", `/runs/${id}/stop`, { reason: "enough scanning" });
    assert.equal(stopped.status, 202);
    assert.equal(stopped.body.rootId, id);
    await settled(s, id);
    await s.worker.executor.idle();
    const tree = (await s.call("GET", `/runs/${id}/tree`)).body;
    assert.equal(tree.nodes.length, 3);
    for (const n of tree.nodes) {
      const run = (await s.call("GET", `/runs/${n.runId}`)).body;
      assert.equal(run.status, "interrupted", n.runId);
      assert.deepEqual(run.interruption, { type: "cancelled", reason: "enough scanning" });
      const events = (await s.store.events(n.runId)).map((e) => e.event.type);
      assert.equal(events.at(-1), "run_stopped", `${n.runId}: ${events.join(",")}`);
    }
    // Nothing keeps running: no new events arrive.
    const counts = await Promise.all(
      tree.nodes.map(async (n: { runId: string }) => (await s.store.events(n.runId)).length),
    );
    await sleep(700);
    const later = await Promise.all(
      tree.nodes.map(async (n: { runId: string }) => (await s.store.events(n.runId)).length),
    );
    assert.deepEqual(later, counts);

    // Resume clears the Stop and the tree finishes.
    assert.equal((await s.call("POST", `/runs/${id}/resume`)).status, 202);
    const done = await settled(s, id, 20_000);
    assert.equal(done.status, "completed");
    assert.match(done.output, /Research found: Scanned the archive/);
  }));

Deno.test("/openapi.json lists every route with schemas from zod", () =>
  withServer({}, async (s) => {
    const doc = (await s.call("GET", "/openapi.json")).body;
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      "/agents",
      "/openapi.json",
      "/runs",
      "/runs/{id}",
      "/runs/{id}/approve",
      "/runs/{id}/events",
      "/runs/{id}/fork",
      "/runs/{id}/messages",
      "/runs/{id}/reject",
      "/runs/{id}/resume",
      "/runs/{id}/stop",
      "/runs/{id}/tree",
    ]);
    // task is optional: a scenario brings its own.
    assert.equal(doc.components.schemas.CreateRun.properties.task.type, "string");
    assert.equal(doc.components.schemas.CreateRun.required, undefined);
    assert.deepEqual(doc.components.schemas.Approve.required, ["callId"]);
    assert.ok(doc.paths["/runs"].post && doc.paths["/runs"].get);
    assert.ok(doc.paths["/runs/{id}/messages"].get && doc.paths["/runs/{id}/messages"].post);
    assert.deepEqual(doc.components.schemas.Fork.required, ["atTurn"]);
  }));
