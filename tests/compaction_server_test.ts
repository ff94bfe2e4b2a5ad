// A run's context policy through the HTTP API (issue 26): POST /runs takes
// options.context, the run compacts, GET /runs/:id and the inspector show it.
import assert from "node:assert/strict";
import { settled, withServer } from "./server_helpers.ts";

Deno.test("POST /runs with options.context: the run compacts; the view, the events and the page say so", () =>
  withServer({}, async (s) => {
    const created = await s.call("POST", "/runs", {
      scenario: "runaway",
      limits: { maxTurns: 60 },
      options: { context: { trigger: { tokens: 1500 }, keepTurns: 2 }, researchDepth: 0 },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.compaction, null);
    const id = created.body.runId;
    await settled(s, id);
    const view = (await s.call("GET", `/runs/${id}`)).body;
    assert.equal(view.status, "max_turns_exceeded");
    assert.ok(view.compaction.compactions >= 1, JSON.stringify(view.compaction));
    assert.ok(view.compaction.costUsd > 0 && view.compaction.costUsd < view.costUsd);
    const events = (await s.store.events(id)).map((e) => e.event);
    const compactions = events.filter((e) => e.type === "compaction");
    assert.equal(compactions.length, view.compaction.compactions);
    const page = await (await s.app.request(`/ui/runs/${id}`)).text();
    assert.match(page, /<dt>Compactions<\/dt>\s*<dd>\d+ · \$/);
  }));

Deno.test("POST /runs refuses a bad context policy, naming the field", () =>
  withServer({}, async (s) => {
    const bad = await s.call("POST", "/runs", {
      scenario: "runaway",
      options: { context: { trigger: 2 } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.field, /^options\.context\.trigger/);
    const unknown = await s.call("POST", "/runs", {
      scenario: "runaway",
      options: { context: { summaryModel: "no-such-model" } },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.field, "options.context.summaryModel");
  }));
