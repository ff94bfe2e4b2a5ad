// POST /runs with `Accept: text/event-stream`: the answer is the run's event stream,
// for a client that wants to wait (and, on Deno Deploy, keeps the instance alive).
import assert from "node:assert/strict";
import { parseSse, readUntilStopped, withServer } from "./server_helpers.ts";

Deno.test("POST /runs with Accept: text/event-stream answers with the run's events until it stops", () =>
  withServer({}, async (s) => {
    const res = await s.app.request("/runs", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ task: "t", scenario: "plan" }),
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const id = res.headers.get("location")?.replace("/runs/", "") ?? "";
    assert.ok(id);
    const text = await readUntilStopped(res);
    const events = parseSse(text);
    assert.deepEqual(events.map((e) => e.id), events.map((_, i) => String(i)));
    assert.ok(events.every((e) => e.data.runId === id));
    const last = events.at(-1)!.data;
    assert.equal(last.type === "run_stopped" && last.status, "completed");
  }));

Deno.test("POST /runs preferring JSON still answers the run's summary", () =>
  withServer({}, async (s) => {
    const res = await s.app.request("/runs", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ task: "t", scenario: "plan" }),
    });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).status, "running");
  }));
