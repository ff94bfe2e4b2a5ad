// Bad HTTP input on every route of the app, through app.request() (no
// ports): malformed and mistyped bodies, missing and extra fields, huge
// strings, oversized bodies, wrong content types, bad queries, unknown ids,
// path tricks, and missing or wrong bearer tokens. Each answer must be the
// right 4xx with a JSON error naming the problem, and nothing may be written:
// every key/value (and versionstamp) of the KV is compared before and after
// each request, and nothing may be scheduled.
import assert from "node:assert/strict";
import { createApp, MAX_BODY_BYTES, type ReinsApp } from "../../server/app.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { newRun } from "../../harness/state.ts";
import { requestStop } from "../../runtime/stop_tree.ts";
import { scriptedModel } from "../../testing/scripted_model.ts";
import { ALL_SCENARIOS, demoDeps } from "../../demo/process.ts";
import { TREE_SCENARIOS } from "../../testing/tree_scenarios.ts";
import { awaitingRun, CALL, kvSnapshot, Tally } from "./races_helpers.ts";

const TOKEN = "s3cret-token-for-input-tests";
const JSON_TYPE = { "content-type": "application/json" };
const MB = 1024 * 1024;

/** One bad request and the answer it must get. */
interface Case {
  /** The route, as in the app (`POST /runs/:id/approve`), for the tally. */
  route: string;
  /** What is wrong with it. */
  what: string;
  method: string;
  path: string;
  /** Default: none. A string is sent with `content-type: application/json` unless `headers` says otherwise. */
  body?: BodyInit | (() => BodyInit);
  headers?: Record<string, string>;
  /** Send no content-type at all (a byte body). */
  noContentType?: boolean;
  status: number;
  /** The JSON error's `code` (omitted for an HTML page). */
  code?: string;
  /** The JSON error's `field`, which its message must start with. */
  field?: string;
  /** An inspector page answers with HTML, not JSON. */
  html?: boolean;
}

interface Fixture {
  app: ReinsApp;
  kv: Deno.Kv;
  /** A completed run (with a Stop recorded after it ended). */
  done: string;
  /** A run awaiting a verdict on call `c1` (delete_file). */
  waiting: string;
  /** A child run of `waiting`'s tree. */
  child: string;
  /** Runs scheduled (must stay 0). */
  scheduled: string[];
  /** Requests tried, by route. */
  tally: Tally;
}

async function withFixture(
  token: string | undefined,
  fn: (f: Fixture) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const root = await Deno.makeTempDir({ prefix: "reins-input-" });
  const store = new KvRunStore(kv);
  const scheduled: string[] = [];
  const app = createApp({
    kv,
    store,
    token,
    ...demoDeps({ scripted: true }),
    // Scenario names only: no environment variable can make another name servable.
    makeModel: (name) => {
      if (!Object.hasOwn(ALL_SCENARIOS, name)) throw new TypeError(`unknown model "${name}"`);
      return scriptedModel(name, { scenarios: TREE_SCENARIOS });
    },
    defaultModel: "plan",
    workspaceRoot: root,
    pollMs: 5,
    schedule: (id) => {
      scheduled.push(id);
      return Promise.resolve();
    },
  });
  const finished = newRun("the completed task", { model: "echo" });
  finished.messages.push({ role: "assistant", content: "the completed task" });
  Object.assign(finished, {
    status: "completed",
    turns: 1,
    output: "the completed task",
    stopReason: "the model answered",
  });
  await store.save(finished);
  await requestStop(kv, finished.runId, "too late");
  const waiting = awaitingRun({
    toolName: "delete_file",
    args: { path: "notes.txt" },
    model: "destructive",
  });
  await store.save(waiting);
  const child = newRun("the child task", {
    model: "echo",
    parent: { runId: waiting.runId, rootId: waiting.runId, callId: "c0" },
  });
  await store.save(child);
  try {
    await fn({
      app,
      kv,
      done: finished.runId,
      waiting: waiting.runId,
      child: child.runId,
      scheduled,
      tally: new Tally(token ? "bad input, token set" : "bad input", "requests"),
    });
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}

/** A body of `bytes` spaces made on demand, counting what the server pulled. */
function lazyBody(bytes: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled >= bytes) return c.close();
      pulled += chunk.length;
      c.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => pulled };
}

/** Sends a case and checks the answer and that nothing was written or scheduled. */
async function check(f: Fixture, c: Case, auth: Record<string, string> = {}): Promise<void> {
  const label = `${c.method} ${c.path.slice(0, 120)} — ${c.what}`;
  const before = await kvSnapshot(f.kv);
  const raw = typeof c.body === "function" ? c.body() : c.body;
  const headers: Record<string, string> = {
    ...(typeof raw === "string" && !c.noContentType ? JSON_TYPE : {}),
    ...auth,
    ...c.headers,
  };
  const res = await f.app.request(c.path, { method: c.method, headers, body: raw });
  const text = await res.text();
  assert.equal(res.status, c.status, `${label}: status (${text.slice(0, 300)})`);
  if (c.html) {
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/, label);
  } else {
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/, label);
    const error = JSON.parse(text).error;
    assert.equal(typeof error?.message, "string", `${label}: error.message`);
    assert.ok(error.message.length > 0 && error.message.length < 2_000, `${label}: message size`);
    if (c.code) assert.equal(error.code, c.code, `${label}: code (${error.message})`);
    if (c.field !== undefined) {
      assert.equal(error.field, c.field, `${label}: field (${error.message})`);
      assert.ok(error.message.startsWith(`${c.field}: `), `${label}: ${error.message}`);
    }
  }
  assert.deepEqual(await kvSnapshot(f.kv), before, `${label}: something was written`);
  assert.deepEqual(f.scheduled, [], `${label}: something was scheduled`);
  f.tally.add(c.route);
}

const bad = (field: string, status = 400, code = "bad_request") => ({ status, field, code });
const tooLarge = { status: 413, code: "payload_too_large" };
const notJson = { status: 415, code: "unsupported_media_type" };
const body = (v: unknown) => JSON.stringify(v);

/** Bodies that are wrong for any route that reads one. */
function malformedBodies(route: string, method: string, path: string, valid: unknown): Case[] {
  const json = body(valid);
  const cases: Omit<Case, "route" | "method" | "path">[] = [
    { what: "not JSON", body: "{not json", ...bad("body") },
    { what: "truncated JSON", body: json.slice(0, -1), ...bad("body") },
    { what: "form-encoded text sent as JSON", body: "callId=c1&task=x", ...bad("body") },
    { what: "JSON array", body: "[]", ...bad("body") },
    { what: "array of the valid body", body: `[${json}]`, ...bad("body") },
    { what: "null", body: "null", ...bad("body") },
    { what: "a number", body: "42", ...bad("body") },
    { what: "NaN", body: "NaN", ...bad("body") },
    { what: "a string", body: '"x"', ...bad("body") },
    { what: "true", body: "true", ...bad("body") },
    { what: "deeply nested", body: "[".repeat(100_000) + "]".repeat(100_000), ...bad("body") },
    { what: "extra field", body: body({ ...valid as object, extra: 1 }), ...bad("extra") },
    {
      what: "__proto__ field",
      body: json.replace(/^\{/, '{"__proto__":{"admin":true},'),
      ...bad("__proto__"),
    },
    { what: "text/plain", body: json, headers: { "content-type": "text/plain" }, ...notJson },
    {
      what: "form content type",
      body: json,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      ...notJson,
    },
    { what: "multipart form", body: () => formData(valid), ...notJson },
    {
      what: "JSON bytes with no content type",
      body: () => new TextEncoder().encode(json),
      noContentType: true,
      ...notJson,
    },
    { what: "xml content type", body: json, headers: { "content-type": "text/xml" }, ...notJson },
    {
      what: `oversized ~10 MB streamed (limit ${MAX_BODY_BYTES})`,
      body: () => lazyBody(10 * MB).stream,
      headers: JSON_TYPE,
      ...tooLarge,
    },
    {
      what: "oversized ~10 MB with content-length",
      body: () => " ".repeat(10 * MB),
      headers: { ...JSON_TYPE, "content-length": String(10 * MB) },
      ...tooLarge,
    },
    {
      what: "oversized JSON (a 3 MB string field)",
      body: () => body({ ...valid as object, pad: "x".repeat(3 * MB) }),
      ...tooLarge,
    },
  ];
  return cases.map((c) => ({ route, method, path, ...c }));
}

function formData(valid: unknown): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(valid as object)) form.set(k, String(v));
  return form;
}

/** Field-level mistakes of `POST /runs`. */
function createRunCases(): Case[] {
  const route = "POST /runs";
  const c = (what: string, value: unknown, field: string, status = 400): Case => ({
    route,
    what,
    method: "POST",
    path: "/runs",
    body: typeof value === "string" ? value : body(value),
    ...bad(field, status, status === 413 ? "payload_too_large" : "bad_request"),
  });
  const huge = "x".repeat(100_001);
  return [
    ...malformedBodies(route, "POST", "/runs", { task: "x" }),
    { route, what: "empty body", method: "POST", path: "/runs", body: "", ...bad("body") },
    { route, what: "no body", method: "POST", path: "/runs", ...bad("body") },
    c("missing task", {}, "task"),
    c("missing task, other fields", { model: "plan", limits: { maxTurns: 3 } }, "task"),
    c("task a number", { task: 1 }, "task"),
    c("task null", { task: null }, "task"),
    c("task an array", { task: ["x"] }, "task"),
    c("task an object", { task: { text: "x" } }, "task"),
    c("task blank", { task: " \n\t " }, "task"),
    c("task of 100,001 characters", { task: huge }, "task", 413),
    c("task of 1.5 MB (escaped)", `{"task":"${"\\u0041".repeat(250_000)}"}`, "task", 413),
    c("last duplicate key wins (empty task)", '{"task":"x","task":""}', "task"),
    c("system (instructions are the agent's)", { task: "x", system: "s" }, "system"),
    c("system a number", { task: "x", system: 5 }, "system"),
    c("unknown agent", { task: "x", agent: "nope" }, "agent"),
    c("agent not a name", { task: "x", agent: "a/b" }, "agent"),
    c("limits beyond the agent's", { task: "x", limits: { maxTurns: 21 } }, "limits.maxTurns"),
    c("model empty", { task: "x", model: "" }, "model"),
    c("model too long", { task: "x", model: "m".repeat(201) }, "model", 413),
    c("model unknown", { task: "x", model: "gpt-nope" }, "model"),
    c("model a number", { task: "x", model: 4 }, "model"),
    c("scenario unknown", { task: "x", scenario: "no-such" }, "scenario"),
    c("scenario with a path trick", { task: "x", scenario: "../plan" }, "scenario"),
    c("scenario __proto__", { task: "x", scenario: "__proto__" }, "scenario"),
    c("scenario and model", { task: "x", scenario: "plan", model: "plan" }, "model"),
    c("limits a string", { task: "x", limits: "many" }, "limits"),
    c("limits an array", { task: "x", limits: [] }, "limits"),
    c("limits null", { task: "x", limits: null }, "limits"),
    c("maxTurns 0", { task: "x", limits: { maxTurns: 0 } }, "limits.maxTurns"),
    c("maxTurns negative", { task: "x", limits: { maxTurns: -1 } }, "limits.maxTurns"),
    c("maxTurns fractional", { task: "x", limits: { maxTurns: 1.5 } }, "limits.maxTurns"),
    c("maxTurns a string", { task: "x", limits: { maxTurns: "5" } }, "limits.maxTurns"),
    c('maxTurns "NaN"', { task: "x", limits: { maxTurns: "NaN" } }, "limits.maxTurns"),
    c("maxTurns too large", { task: "x", limits: { maxTurns: 1001 } }, "limits.maxTurns"),
    c("maxTurns 1e400 (Infinity)", '{"task":"x","limits":{"maxTurns":1e400}}', "limits.maxTurns"),
    c(
      "maxBudgetUsd negative",
      { task: "x", limits: { maxBudgetUsd: -0.5 } },
      "limits.maxBudgetUsd",
    ),
    c("maxBudgetUsd 0", { task: "x", limits: { maxBudgetUsd: 0 } }, "limits.maxBudgetUsd"),
    c("maxBudgetUsd -0", '{"task":"x","limits":{"maxBudgetUsd":-0}}', "limits.maxBudgetUsd"),
    c(
      "maxBudgetUsd 1e400 (Infinity)",
      '{"task":"x","limits":{"maxBudgetUsd":1e400}}',
      "limits.maxBudgetUsd",
    ),
    c("maxBudgetUsd a string", { task: "x", limits: { maxBudgetUsd: "1" } }, "limits.maxBudgetUsd"),
    c("limits extra key", { task: "x", limits: { maxTurns: 2, turbo: true } }, "limits.turbo"),
    c("options an array", { task: "x", options: [] }, "options"),
    c("options extra key", { task: "x", options: { sudo: true } }, "options.sudo"),
    c("concurrency 0", { task: "x", options: { concurrency: 0 } }, "options.concurrency"),
    c("concurrency 17", { task: "x", options: { concurrency: 17 } }, "options.concurrency"),
    c("budgetMode unknown", { task: "x", options: { budgetMode: "yolo" } }, "options.budgetMode"),
    c("toolErrors a number", { task: "x", options: { toolErrors: 1 } }, "options.toolErrors"),
    c("dedupe a string", { task: "x", options: { dedupe: "yes" } }, "options.dedupe"),
    c("researchDepth -1", { task: "x", options: { researchDepth: -1 } }, "options.researchDepth"),
    c("researchDepth 9", { task: "x", options: { researchDepth: 9 } }, "options.researchDepth"),
    c(
      "researchWrites a string",
      { task: "x", options: { researchWrites: "true" } },
      "options.researchWrites",
    ),
  ];
}

/** Ids that are not run ids, and what the app must answer for each. */
function idTricks(): { what: string; segment: string; status: number; code: string }[] {
  const invalid = (what: string, segment: string) => ({
    what,
    segment,
    status: 400,
    code: "bad_request",
  });
  return [
    invalid("encoded slash", "abc%2Fdef"),
    invalid("encoded backslash", "abc%5Cdef"),
    invalid("encoded NUL", "abc%00"),
    invalid("encoded newline", "abc%0Adef"),
    invalid("space", "a%20b"),
    invalid("starts with a dot", ".hidden"),
    invalid("starts with a dash", "-rf"),
    invalid("unicode", "r%C3%BCn"),
    invalid("emoji", "%F0%9F%92%A3"),
    invalid("right-to-left override", "a%E2%80%AEb"),
    invalid("201 characters", "a".repeat(201)),
    invalid("10,000 characters", "a".repeat(10_000)),
    invalid("malformed percent-encoding", "%E0%A4%A"),
    invalid("a lone percent", "%"),
    invalid("double-encoded dot-dot", "%252e%252e"),
    { what: "unknown uuid", segment: crypto.randomUUID(), status: 404, code: "run_not_found" },
    { what: "dots inside", segment: "a..b", status: 404, code: "run_not_found" },
    { what: "child-style id", segment: "nope.call_1_0", status: 404, code: "run_not_found" },
    { what: "200 characters", segment: "a".repeat(200), status: 404, code: "run_not_found" },
  ];
}

/** Every route that takes a run id, with a valid body where it takes one. */
function idRoutes(): { route: string; method: string; suffix: string; body?: unknown }[] {
  return [
    { route: "GET /runs/:id", method: "GET", suffix: "" },
    { route: "GET /runs/:id/messages", method: "GET", suffix: "/messages" },
    { route: "GET /runs/:id/tree", method: "GET", suffix: "/tree" },
    { route: "GET /runs/:id/events", method: "GET", suffix: "/events?follow=false" },
    { route: "POST /runs/:id/approve", method: "POST", suffix: "/approve", body: { callId: CALL } },
    { route: "POST /runs/:id/reject", method: "POST", suffix: "/reject", body: { callId: CALL } },
    { route: "POST /runs/:id/resume", method: "POST", suffix: "/resume", body: {} },
    { route: "POST /runs/:id/stop", method: "POST", suffix: "/stop", body: { reason: "x" } },
    { route: "GET /ui/parts/runs/:id", method: "GET", suffix: "" },
  ];
}

function pathFor(route: string, id: string, suffix: string): string {
  return route.startsWith("GET /ui/parts/") ? `/ui/parts/runs/${id}` : `/runs/${id}${suffix}`;
}

function idCases(): Case[] {
  const cases: Case[] = [];
  for (const r of idRoutes()) {
    for (const t of idTricks()) {
      cases.push({
        route: r.route,
        what: t.what,
        method: r.method,
        path: pathFor(r.route, t.segment, r.suffix),
        body: r.body === undefined ? undefined : body(r.body),
        status: t.status,
        code: t.code,
        ...(t.status === 400 ? { field: "id" } : {}),
      });
    }
    // `..` segments are resolved by URL parsing before routing: never a run id, but
    // another route (an unknown one, or `GET /`, the inspector's list page).
    for (const segment of ["..", "%2e%2e", ".%2E", "%2E."]) {
      const path = pathFor(r.route, segment, r.suffix);
      const home = new URL(path, "http://x").pathname === "/" && r.method === "GET";
      cases.push({
        route: r.route,
        what: `dot-dot as ${segment}`,
        method: r.method,
        path,
        body: r.body === undefined ? undefined : body(r.body),
        ...(home ? { status: 200, html: true } : { status: 404, code: "not_found" }),
      });
    }
  }
  // The inspector page answers bad ids with an HTML page.
  for (const t of idTricks()) {
    cases.push({
      route: "GET /ui/runs/:id",
      what: t.what,
      method: "GET",
      path: `/ui/runs/${t.segment}`,
      status: t.status,
      html: true,
    });
  }
  return cases;
}

/** Bodies, verdicts and states that the control routes must refuse. */
function controlCases(f: Fixture): Case[] {
  const cases: Case[] = [];
  const post = (route: string, id: string, suffix: string) => ({
    route,
    method: "POST",
    path: `/runs/${id}${suffix}`,
  });
  const approve = post("POST /runs/:id/approve", f.waiting, "/approve");
  const reject = post("POST /runs/:id/reject", f.waiting, "/reject");
  const resume = post("POST /runs/:id/resume", f.waiting, "/resume");
  const stop = post("POST /runs/:id/stop", f.waiting, "/stop");
  cases.push(...malformedBodies(approve.route, "POST", approve.path, { callId: CALL }));
  cases.push(...malformedBodies(reject.route, "POST", reject.path, { callId: CALL, reason: "n" }));
  cases.push(...malformedBodies(resume.route, "POST", resume.path, { limits: { maxTurns: 5 } }));
  cases.push(...malformedBodies(stop.route, "POST", stop.path, { reason: "enough" }));
  // Over a size limit is 413 (the message says the limit), any other bad field 400.
  const field = (base: typeof approve, what: string, v: unknown, name: string, big = false) => ({
    ...base,
    what,
    body: body(v),
    ...(big ? bad(name, 413, "payload_too_large") : bad(name)),
  });
  cases.push(
    { ...approve, what: "empty body", body: "", ...bad("body") },
    field(approve, "missing callId", {}, "callId"),
    field(approve, "callId a number", { callId: 7 }, "callId"),
    field(approve, "callId null", { callId: null }, "callId"),
    field(approve, "callId empty", { callId: "" }, "callId"),
    field(approve, "callId an array", { callId: [CALL] }, "callId"),
    field(approve, "callId of 201 characters", { callId: "c".repeat(201) }, "callId", true),
    field(approve, "reason given to approve", { callId: CALL, reason: "x" }, "reason"),
    { ...reject, what: "no body", ...bad("body") },
    field(reject, "missing callId", { reason: "no" }, "callId"),
    field(reject, "reason a number", { callId: CALL, reason: 3 }, "reason"),
    field(reject, "reason null", { callId: CALL, reason: null }, "reason"),
    field(
      reject,
      "reason of 10,001 characters",
      { callId: CALL, reason: "r".repeat(10_001) },
      "reason",
      true,
    ),
    field(resume, "limits a string", { limits: "more" }, "limits"),
    field(resume, "maxTurns -1", { limits: { maxTurns: -1 } }, "limits.maxTurns"),
    field(resume, 'maxTurns "x"', { limits: { maxTurns: "x" } }, "limits.maxTurns"),
    field(
      resume,
      "maxBudgetUsd NaN as text",
      { limits: { maxBudgetUsd: "NaN" } },
      "limits.maxBudgetUsd",
    ),
    field(stop, "reason empty", { reason: "" }, "reason"),
    field(stop, "reason blank", { reason: "   " }, "reason"),
    field(stop, "reason a number", { reason: 5 }, "reason"),
    field(stop, "reason null", { reason: null }, "reason"),
    field(stop, "reason of 1,001 characters", { reason: "s".repeat(1001) }, "reason", true),
  );
  // Well-formed requests the run's state refuses (409), and unknown runs (404): nothing written.
  const state = { status: 409, code: "run_state" };
  cases.push(
    { ...approve, what: "a call not awaited", body: body({ callId: "call_9_9" }), ...state },
    { ...reject, what: "a call not awaited", body: body({ callId: "call_9_9" }), ...state },
    { ...resume, what: "verdict still missing", body: "", ...state },
    {
      ...post("POST /runs/:id/approve", f.done, "/approve"),
      what: "run already completed",
      body: body({ callId: CALL }),
      ...state,
    },
    {
      ...post("POST /runs/:id/reject", f.done, "/reject"),
      what: "run already completed",
      body: body({ callId: CALL }),
      ...state,
    },
    { ...post("POST /runs/:id/resume", f.done, "/resume"), what: "run completed", ...state },
    {
      ...post("POST /runs/:id/approve", f.child, "/approve"),
      what: "verdict at a child whose tree awaits another call",
      body: body({ callId: "c9" }),
      ...state,
    },
  );
  return cases;
}

/** Query mistakes of `GET /runs` and `GET /runs/:id/events`. */
function queryCases(f: Fixture): Case[] {
  const list = (what: string, q: string, name: string): Case => ({
    route: "GET /runs",
    what,
    method: "GET",
    path: `/runs?${q}`,
    ...bad(name),
  });
  const events = (
    what: string,
    q: string,
    name: string,
    headers?: Record<string, string>,
  ): Case => ({
    route: "GET /runs/:id/events",
    what,
    method: "GET",
    path: `/runs/${f.done}/events?${q}`,
    headers,
    ...bad(name),
  });
  return [
    list("status unknown", "status=nope", "status"),
    list("status empty", "status=", "status"),
    list("status with a path trick", "status=..%2Frunning", "status"),
    list("limit 0", "limit=0", "limit"),
    list("limit negative", "limit=-1", "limit"),
    list("limit NaN", "limit=NaN", "limit"),
    list("limit fractional", "limit=1.5", "limit"),
    list("limit huge", "limit=1e9", "limit"),
    list("limit Infinity", "limit=Infinity", "limit"),
    list("limit text", "limit=ten", "limit"),
    list("limit empty", "limit=", "limit"),
    list("unknown parameter", "limit=5&sort=asc", "sort"),
    events("after below -1", "after=-2", "after"),
    events("after text", "after=x", "after"),
    events("after NaN", "after=NaN", "after"),
    events("after fractional", "after=1.5", "after"),
    events("after 1e400", "after=1e400", "after"),
    events("after beyond safe integers", "after=9007199254740993", "after"),
    events("follow unknown", "follow=maybe", "follow"),
    events("unknown parameter", "follow=false&token=x", "token"),
    events("Last-Event-ID text", "follow=false", "Last-Event-ID", { "last-event-id": "abc" }),
    events("Last-Event-ID -5", "follow=false", "Last-Event-ID", { "last-event-id": "-5" }),
    events("Last-Event-ID 1.5", "follow=false", "Last-Event-ID", { "last-event-id": "1.5" }),
    events("Last-Event-ID 1e400", "follow=false", "Last-Event-ID", { "last-event-id": "1e400" }),
  ];
}

/** Routes and methods that do not exist. */
function unknownRouteCases(f: Fixture): Case[] {
  const nf = { status: 404, code: "not_found" };
  const c = (method: string, path: string, what = "no such route"): Case => ({
    route: "(unknown route)",
    what,
    method,
    path,
    ...nf,
  });
  return [
    c("DELETE", `/runs/${f.done}`, "DELETE a run"),
    c("PUT", "/runs", "PUT /runs"),
    c("PATCH", `/runs/${f.done}`, "PATCH a run"),
    c("GET", `/runs/${f.waiting}/approve`, "GET on a POST route"),
    c("POST", `/runs/${f.waiting}`, "POST on a GET route"),
    c("POST", `/runs/${f.waiting}/delete`),
    c("GET", `/runs/${f.done}/messages/0`),
    c("GET", "/runs/", "trailing slash"),
    c("GET", "//runs", "double slash"),
    c("OPTIONS", "/runs"),
    c("GET", "/admin"),
    c("GET", "/%2e%2e/%2e%2e/etc/passwd", "dot-dot out of the root"),
    c("GET", "/ui/static/..%2F..%2Fdeno.json", "encoded traversal under static"),
  ];
}

/** The scripted provider under /v1: bad bodies are 4xx and write nothing. */
function providerCases(): Case[] {
  const route = "POST /v1/chat/completions";
  const c = (what: string, v: BodyInit | (() => BodyInit), status: number): Case => ({
    route,
    what,
    method: "POST",
    path: "/v1/chat/completions",
    body: v,
    status,
  });
  return [
    c("not JSON", "{nope", 400),
    c("JSON array", "[]", 400),
    c("no messages", body({ model: "plan" }), 400),
    c("messages a string", body({ model: "plan", messages: "hi" }), 400),
    c("unknown model", body({ model: "nope", messages: [{ role: "user", content: "x" }] }), 404),
    { ...c("oversized", () => lazyBody(10 * MB).stream, 413), headers: JSON_TYPE },
  ];
}

Deno.test("bad HTTP input: every route answers the right 4xx with a JSON error and writes nothing", async () => {
  await withFixture(undefined, async (f) => {
    const cases = [
      ...createRunCases(),
      ...controlCases(f),
      ...queryCases(f),
      ...idCases(),
      ...unknownRouteCases(f),
      ...providerCases(),
    ];
    for (const c of cases) await check(f, c);
    f.tally.print();
    console.log(`  ${cases.length} bad requests over ${f.tally.counts.size} routes`);
  });
});

Deno.test("bad HTTP input: an oversized body is refused without being read to the end", async () => {
  await withFixture(undefined, async (f) => {
    for (const path of ["/runs", `/runs/${f.waiting}/approve`, `/runs/${f.waiting}/stop`]) {
      const before = await kvSnapshot(f.kv);
      const { stream, pulled } = lazyBody(10 * MB);
      const res = await f.app.request(path, { method: "POST", headers: JSON_TYPE, body: stream });
      assert.equal(res.status, 413, path);
      const { error } = await res.json();
      assert.equal(error.code, "payload_too_large");
      assert.match(error.message, /^body: larger than the limit of \d+ bytes$/);
      // At most the limit and one chunk: never the whole 10 MB.
      assert.ok(pulled() <= MAX_BODY_BYTES + 64 * 1024, `${path}: read ${pulled()} bytes`);
      await stream.cancel().catch(() => {});
      assert.deepEqual(await kvSnapshot(f.kv), before);
    }
    // The largest valid body still fits: a 100,000-character task written as \uXXXX escapes.
    const task = "\\u00e9".repeat(100_000);
    const res = await f.app.request("/runs", {
      method: "POST",
      headers: JSON_TYPE,
      body: `{"task":"${task}"}`,
    });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal((await res.json()).messageCount, 2); // the agent's instructions and the task
    assert.equal(f.scheduled.length, 1);
  });
});

Deno.test("bad HTTP input: with a token set, every route needs it (401) and nothing is read or written", async () => {
  await withFixture(TOKEN, async (f) => {
    const routes: { route: string; method: string; path: string; body?: unknown }[] = [
      { route: "POST /runs", method: "POST", path: "/runs", body: { task: "x" } },
      { route: "GET /runs", method: "GET", path: "/runs" },
      { route: "GET /openapi.json", method: "GET", path: "/openapi.json" },
      { route: "GET /ui/parts/runs", method: "GET", path: "/ui/parts/runs" },
      { route: "GET /v1/models", method: "GET", path: "/v1/models" },
      {
        route: "POST /v1/chat/completions",
        method: "POST",
        path: "/v1/chat/completions",
        body: { model: "plan", messages: [{ role: "user", content: "x" }] },
      },
      { route: "(unknown route)", method: "GET", path: "/nope" },
      ...idRoutes().map((r) => ({
        route: r.route,
        method: r.method,
        path: pathFor(r.route, f.waiting, r.suffix),
        body: r.body,
      })),
    ];
    const credentials: [string, Record<string, string>][] = [
      ["no header", {}],
      ["empty header", { authorization: "" }],
      ["scheme only", { authorization: "Bearer" }],
      ["scheme and blank", { authorization: "Bearer    " }],
      ["wrong token", { authorization: "Bearer s3cret-token-for-input-tesTs" }],
      ["token prefix", { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ["token plus a character", { authorization: `Bearer ${TOKEN}x` }],
      ["Basic scheme", { authorization: `Basic ${btoa(`user:${TOKEN}`)}` }],
      ["token without a scheme", { authorization: TOKEN }],
      ["two tokens", { authorization: `Bearer wrong, Bearer ${TOKEN}` }],
      ["token in another header", { "x-api-key": TOKEN }],
      ["token in a cookie", { cookie: `token=${TOKEN}` }],
      ["a 64 KB header", { authorization: `Bearer ${"t".repeat(64 * 1024)}` }],
    ];
    let n = 0;
    for (const r of routes) {
      for (const [what, headers] of credentials) {
        const path = what === "no header" && r.method === "GET"
          ? `${r.path}${r.path.includes("?") ? "&" : "?"}token=${TOKEN}` // a token in the query does not count
          : r.path;
        const before = await kvSnapshot(f.kv);
        const res = await f.app.request(path, {
          method: r.method,
          headers: { ...JSON_TYPE, ...headers },
          body: r.body === undefined ? undefined : body(r.body),
        });
        assert.equal(res.status, 401, `${r.route} ${what}`);
        assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="reins"');
        const { error } = await res.json();
        assert.equal(error.code, "unauthorized", `${r.route} ${what}`);
        assert.doesNotMatch(JSON.stringify(error), new RegExp(TOKEN), "the token is echoed");
        assert.deepEqual(await kvSnapshot(f.kv), before, `${r.route} ${what}: written`);
        f.tally.add(r.route);
        n++;
      }
      // An unauthorized 10 MB body is refused before a byte of it is read.
      if (r.method === "POST") {
        const { stream, pulled } = lazyBody(10 * MB);
        const res = await f.app.request(r.path, {
          method: "POST",
          headers: JSON_TYPE,
          body: stream,
        });
        assert.equal(res.status, 401, `${r.route} oversized, no token`);
        await res.body?.cancel();
        assert.equal(pulled(), 0, `${r.route}: read ${pulled()} bytes of an unauthorized body`);
        await stream.cancel().catch(() => {});
        f.tally.add(r.route);
        n++;
      }
    }
    assert.deepEqual(f.scheduled, []);
    // The pages themselves load (they are the login), but show no run data without the token.
    for (const path of ["/", `/ui/runs/${f.done}`]) {
      const res = await f.app.request(path);
      assert.equal(res.status, 200, path);
      const html = await res.text();
      assert.doesNotMatch(html, /the completed task/, `${path} leaks run data`);
      f.tally.add(path === "/" ? "GET /" : "GET /ui/runs/:id");
      n++;
    }
    // And with the token, bad input is still refused the same way.
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const c of createRunCases().slice(0, 12)) await check(f, c, auth);
    n += 12;
    f.tally.print();
    console.log(`  ${n} requests without a valid token or with bad input behind it`);
    assert.equal(await (await f.app.request("/runs", { headers: auth })).status, 200);
  });
});
