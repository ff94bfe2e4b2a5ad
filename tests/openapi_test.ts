// The OpenAPI document describes every response body, and real responses
// validate against the JSON Schema it publishes (read back with z.fromJSONSchema).
import assert from "node:assert/strict";
import { z } from "zod";
import { settled, withServer } from "./server_helpers.ts";

type Json = Record<string, unknown>;

function resolve(doc: Json, schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace("#/components/schemas/", "");
  const found = ((doc.components as Json).schemas as Json)[name] as Json | undefined;
  assert.ok(found, `missing component ${name}`);
  return found;
}

function responseSchema(doc: Json, path: string, method: string, code: string): Json {
  const op = ((doc.paths as Json)[path] as Json)[method] as Json;
  const res = (op.responses as Json)[code] as Json;
  const content = res.content as Json;
  return resolve(doc, (content["application/json"] as Json).schema as Json);
}

function validates(doc: Json, path: string, method: string, code: string, body: unknown) {
  const validator = z.fromJSONSchema(responseSchema(doc, path, method, code) as never);
  const result = validator.safeParse(body);
  return result.success ? null : JSON.stringify(result.error.issues[0]);
}

Deno.test("every documented response has a non-empty schema", () =>
  withServer({}, async (s) => {
    const doc = (await s.call("GET", "/openapi.json")).body as Json;
    let seen = 0;
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        for (const [code, res] of Object.entries((op as Json).responses as Json)) {
          const content = (res as Json).content as Json | undefined;
          assert.ok(content, `${method} ${path} ${code}: no content`);
          for (const [type, media] of Object.entries(content)) {
            const schema = (media as Json).schema as Json | undefined;
            assert.ok(schema, `${method} ${path} ${code} ${type}: no schema`);
            const resolved = resolve(doc, schema);
            assert.ok(Object.keys(resolved).length > 0, `${method} ${path} ${code}: empty schema`);
            seen++;
          }
        }
      }
    }
    assert.ok(seen >= 40, `only ${seen} responses documented`);
  }));

Deno.test("real responses validate against the published response schemas", () =>
  withServer({}, async (s) => {
    const doc = (await s.call("GET", "/openapi.json")).body as Json;
    const created = await s.call("POST", "/runs", { scenario: "destructive" });
    assert.equal(created.status, 201);
    assert.equal(validates(doc, "/runs", "post", "201", created.body), null);
    const id = created.body.runId;
    const waiting = await settled(s, id);
    assert.equal(validates(doc, "/runs/{id}", "get", "200", waiting), null);
    const list = await s.call("GET", "/runs");
    assert.equal(validates(doc, "/runs", "get", "200", list.body), null);
    const messages = await s.call("GET", `/runs/${id}/messages`);
    assert.equal(validates(doc, "/runs/{id}/messages", "get", "200", messages.body), null);
    const tree = await s.call("GET", `/runs/${id}/tree`);
    assert.equal(validates(doc, "/runs/{id}/tree", "get", "200", tree.body), null);
    const approved = await s.call("POST", `/runs/${id}/approve`, {
      callId: waiting.interruption.callId,
    });
    assert.equal(approved.status, 202);
    assert.equal(validates(doc, "/runs/{id}/approve", "post", "202", approved.body), null);
    await settled(s, id);
    const stop = await s.call("POST", `/runs/${id}/stop`, { reason: "done anyway" });
    assert.equal(validates(doc, "/runs/{id}/stop", "post", "202", stop.body), null);
    const missing = await s.call("GET", `/runs/${crypto.randomUUID()}`);
    assert.equal(missing.status, 404);
    assert.equal(validates(doc, "/runs/{id}", "get", "404", missing.body), null);
    // The schemas are not vacuous: a wrong shape is refused.
    assert.notEqual(validates(doc, "/runs", "get", "200", { runs: [{ runId: 1 }] }), null);
    assert.notEqual(validates(doc, "/runs/{id}", "get", "200", { ...waiting, status: "x" }), null);
  }));

Deno.test("each status the API answers is one its document lists for that route", () =>
  withServer({ token: "t0ken" }, async (s) => {
    const auth = { authorization: "Bearer t0ken" };
    const post = (path: string, body: unknown) =>
      s.app.request(path, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const doc = (await s.call("GET", "/openapi.json")).body as Json;
    const listed = (path: string, method: string) =>
      Object.keys((((doc.paths as Json)[path] as Json)[method] as Json).responses as Json);
    const id = (await s.call("POST", "/runs", { scenario: "plan" })).body.runId;
    await settled(s, id);
    const cases: [string, string, string, () => Promise<Response>][] = [
      ["/openapi.json", "get", "401", () => s.app.request("/openapi.json")],
      ["/agents", "get", "401", () => s.app.request("/agents")],
      ["/agents", "get", "200", () => s.app.request("/agents?foo=1", { headers: auth })],
      ["/runs", "post", "413", () => post("/runs", { task: "x".repeat(100_001) })],
      ["/runs/{id}/stop", "post", "202", () => post(`/runs/${id}/stop`, {})],
      [
        "/runs/{id}/events",
        "get",
        "400",
        () => s.app.request(`/runs/${id}/events?follow=false&after=0x1`, { headers: auth }),
      ],
    ];
    for (const [path, method, status, send] of cases) {
      const res = await send();
      await res.body?.cancel();
      assert.equal(String(res.status), status, `${method} ${path}`);
      assert.ok(listed(path, method).includes(status), `${method} ${path}: ${status} not listed`);
    }
    // GET /agents takes no input: no 400 is listed for it.
    assert.ok(!listed("/agents", "get").includes("400"));
  }));
