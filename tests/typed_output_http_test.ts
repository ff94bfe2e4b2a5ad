// Typed results over HTTP: GET /runs/:id gives `output` as JSON (and the
// failure), matching the published OpenAPI schema; the inspector shows the
// value as formatted JSON and the repair turns as such.
import assert from "node:assert/strict";
import { z } from "zod";
import { settled, withServer } from "./server_helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function runViewSchema(doc: Json): z.ZodType {
  let schema = doc.paths["/runs/{id}"].get.responses["200"].content["application/json"].schema;
  if (schema.$ref) schema = doc.components.schemas[schema.$ref.split("/").at(-1)];
  return z.fromJSONSchema(schema as never);
}

Deno.test("GET /runs/:id gives a typed run's output as JSON, valid against the OpenAPI schema", () =>
  withServer({}, async (s) => {
    const doc = (await s.call("GET", "/openapi.json")).body as Json;
    const view = runViewSchema(doc);
    const created = await s.call("POST", "/runs", { scenario: "extract" });
    assert.equal(created.status, 201);
    const done = await settled(s, created.body.runId);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.output, { file: "errors.log", line: 12 });
    assert.equal(done.failure, null);
    assert.equal(view.safeParse(done).success, true);
    const failed = await settled(
      s,
      (await s.call("POST", "/runs", { scenario: "extract-never" })).body.runId,
    );
    assert.equal(failed.status, "failed");
    assert.equal(failed.output, null);
    assert.deepEqual(failed.failure, {
      kind: "invalid_output",
      raw: '{"file":"errors.log","line":"12"}',
      issues: [{ path: "line", message: "Invalid input: expected number, received string" }],
    });
    assert.equal(view.safeParse(failed).success, true);
    // The schema is not vacuous: a failure of an unknown kind is refused.
    assert.equal(view.safeParse({ ...failed, failure: { kind: "other" } }).success, false);
    // The list's summaries carry the value too.
    const list = await s.call("GET", "/runs");
    const listed = list.body.runs.find((r: Json) => r.runId === done.runId);
    assert.deepEqual(listed.output, { file: "errors.log", line: 12 });
  }));

Deno.test("the inspector shows the value as formatted JSON and the repair turn as such", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { scenario: "extract" })).body.runId;
    await settled(s, id);
    const res = await s.app.request(`/ui/runs/${id}`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /<h2>Output<\/h2>/);
    assert.ok(
      text.includes(
        '<pre class="json">{\n  &quot;file&quot;: &quot;errors.log&quot;,\n  &quot;line&quot;: 12\n}</pre>',
      ),
      text,
    );
    // One repair prompt, and the model turn that answers it.
    assert.equal(text.match(/class="msg repair"/g)?.length, 1);
    assert.match(
      text,
      /repair: the answer failed the output schema<\/span><pre>Your answer does not match/,
    );
    assert.match(text, /- at line: Invalid input: expected number, received string/);
    assert.equal(text.match(/model · repair turn/g)?.length, 1);
    // The live fragments carry the same marks.
    const parts = await (await s.app.request(`/ui/parts/runs/${id}`)).json();
    assert.match(parts.transcript, /class="msg repair"/);
    assert.match(parts.summary, /<pre class="json">/);
    // A text run still shows its answer as text.
    const plain = (await s.call("POST", "/runs", { scenario: "echo" })).body.runId;
    await settled(s, plain);
    const plainText = await (await s.app.request(`/ui/runs/${plain}`)).text();
    assert.match(plainText, /<h2>Answer<\/h2>/);
    assert.doesNotMatch(plainText, /msg repair/);
  }));
