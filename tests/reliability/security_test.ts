// Security: tool paths that escape the workspace are refused through real runs
// (the model asks for them) and nothing outside is read or deleted; a rejected
// or uncertain write is never reported as done; the API key never reaches the
// trace, the stored state, a stop reason or an error text.
import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../harness/run.ts";
import { newRun, type RunState } from "../../harness/state.ts";
import { approve, reject } from "../../harness/verdict.ts";
import { createOpenAIModel, type OpenAIModelOptions } from "../../openai/openai_model.ts";
import { memorySink, type TraceEvent } from "../../harness/trace.ts";
import { MemoryRunStore } from "../../harness/run_store.ts";
import type { RunOptions } from "../../harness/run_options.ts";
import { scriptedFetch } from "../../testing/scripted_provider.ts";
import { SCRIPTED_BASE_URL, scriptedModel } from "../../testing/scripted_model.ts";
import { callTool, DECLINED_ANSWER, say, type Scenario } from "../../testing/scenarios.ts";
import { createWorkspace, type Workspace } from "../../tools/workspace.ts";
import { demoTools } from "../../tools/catalog.ts";
import { EFFECTS_LOG, readEffects } from "../../tools/delete_file.ts";
import { NOTES_TXT } from "../../tools/fixtures.ts";
import { exists, fixture } from "../helpers.ts";
import { assertSaneExit, assertWellFormed } from "./invariants.ts";

const SECRET = "TOP SECRET: the launch code is 0000";

/**
 * A temp root holding a workspace `ws/`, an `outside/` folder with a secret, a
 * sibling `ws-evil/` (same name prefix as the workspace), and symlinks inside
 * the workspace that lead out.
 */
async function sandbox() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reins-sec-" }));
  const outside = join(root, "outside");
  await Deno.mkdir(outside);
  const secretFile = join(outside, "secret.txt");
  await Deno.writeTextFile(secretFile, SECRET);
  const ws = await createWorkspace({ dir: join(root, "ws") });
  const evil = `${ws.dir}-evil`;
  await Deno.mkdir(evil);
  await Deno.writeTextFile(join(evil, "secret.txt"), SECRET);
  await Deno.mkdir(join(ws.dir, "sub"));
  await Deno.writeTextFile(join(ws.dir, "%2e%2e"), "a file literally named %2e%2e");
  await Deno.symlink(secretFile, join(ws.dir, "link-file"));
  await Deno.symlink(outside, join(ws.dir, "link-dir"));
  await Deno.symlink(join(outside, "not-yet.txt"), join(ws.dir, "dangling"));
  await Deno.symlink("..", join(ws.dir, "up"));
  const outsideFiles = [secretFile, join(evil, "secret.txt")];
  const links = ["link-file", "link-dir", "dangling", "up"].map((l) => join(ws.dir, l));
  return {
    root,
    ws,
    outside,
    secretFile,
    evil,
    /** Everything outside is still there, unchanged, and so are the links. */
    async intact() {
      for (const f of outsideFiles) assert.equal(await Deno.readTextFile(f), SECRET, f);
      for (const l of links) assert.ok((await Deno.lstat(l)).isSymlink, l);
      assert.equal(await exists(join(outside, "not-yet.txt")), false);
      assert.deepEqual(await readEffects(ws), []);
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

type Expect = "refused" | "error" | "ok";
/** Paths the model tries, and what must happen. `refused` is a PermanentToolError. */
function attacks(sb: { ws: Workspace; secretFile: string; evil: string }): [string, Expect][] {
  return [
    ["..", "refused"],
    ["../outside/secret.txt", "refused"],
    ["../../etc/passwd", "refused"],
    ["../".repeat(64) + "etc/passwd", "refused"],
    ["/etc/passwd", "refused"],
    [sb.secretFile, "refused"],
    [`${sb.ws.dir}/../outside/secret.txt`, "refused"],
    ["sub/../../outside/secret.txt", "refused"],
    ["link-file", "refused"],
    ["link-dir/secret.txt", "refused"],
    ["link-dir", "refused"],
    ["dangling", "refused"],
    ["up/outside/secret.txt", "refused"],
    [`${sb.evil}/secret.txt`, "refused"],
    ["../ws-evil/secret.txt", "refused"],
    ["notes.txt\u0000../../etc/passwd", "refused"],
    ["\u0000", "refused"],
    ["%2e%2e/%2e%2e/etc/passwd", "error"],
    ["..%2f..%2fetc%2fpasswd", "error"],
    ["%2e%2e%2f%2e%2e%2foutside%2fsecret.txt", "error"],
    ["..\\..\\outside\\secret.txt", "error"],
    ["file:///etc/passwd", "error"],
    ["~/../../etc/passwd", "refused"],
    ["~/.ssh/id_rsa", "error"],
    ["a/".repeat(3000) + "x", "error"],
    // One 5,000-character name (NAME_MAX is 255). Words, not "xxxx…": js-tiktoken's
    // BPE takes ~20 s on 5,000 repeated characters (see the report).
    ["very long file name ".repeat(250), "error"],
    ["sub/" + "../sub/".repeat(2000) + "../notes.txt", "ok"],
    ["%2e%2e", "ok"],
    ["sub/../notes.txt", "ok"],
    ["up/ws/notes.txt", "ok"],
  ];
}

/** A scenario that calls `tool` with each path in turn, then answers. */
function probing(tool: string, paths: readonly string[]): Scenario {
  return ({ turn }) =>
    turn < paths.length ? callTool(turn, tool, { path: paths[turn] }) : say("done");
}

function modelFor(scenario: Scenario) {
  return scriptedModel("probe", { scenarios: { probe: scenario } });
}

const leaks = (text: string) => text.includes("launch code") || /root:.*:0:0:/.test(text);

function assertNoLeak(s: RunState, events: readonly TraceEvent[], label: string) {
  for (const m of s.messages) assert.ok(!leaks(m.content ?? ""), `${label}: leaked ${m.content}`);
  assert.ok(!leaks(JSON.stringify(events)), `${label}: leaked into the trace`);
  assert.ok(!leaks(String(s.output ?? "")) && !leaks(s.stopReason ?? ""), label);
}

const short = (p: string) => JSON.stringify(p.length > 60 ? `${p.slice(0, 40)}…(${p.length})` : p);

Deno.test("read_file refuses every escaping path through a real run; nothing outside is read", async () => {
  await using sb = await sandbox();
  const tools = demoTools(sb.ws);
  const cases = attacks(sb);
  for (const [path, expect] of cases) {
    const label = `read_file ${short(path)}`;
    const { sink, events } = memorySink();
    const s = await run(newRun("Read that file."), {
      model: modelFor(probing("read_file", [path])),
      tools,
      trace: sink,
    });
    assertSaneExit(s, events, label);
    assertNoLeak(s, events, label);
    const result = s.messages.find((m) => m.role === "tool");
    assert.ok(result?.role === "tool", label);
    if (expect === "refused") {
      assert.equal(s.status, "failed", label);
      assert.match(
        s.stopReason!,
        /^read_file failed permanently: permission denied: .* outside the workspace$/,
        label,
      );
      assert.match(
        result.content,
        /^Error: permission denied: .* is outside the workspace$/,
        label,
      );
    } else if (expect === "error") {
      assert.equal(s.status, "completed", `${label}: ${s.stopReason}`);
      assert.match(result.content, /^Error: /, label);
    } else {
      assert.equal(s.status, "completed", label);
      assert.ok(!result.content.startsWith("Error"), `${label}: ${result.content.slice(0, 200)}`);
    }
  }
  // The same paths in one lenient run: every refusal reaches the model, the run goes on.
  const { sink, events } = memorySink();
  const all = await run(newRun("Read them all."), {
    model: modelFor(probing("read_file", cases.map(([p]) => p))),
    tools,
    trace: sink,
    stopOnPermanentError: false,
    limits: { maxTurns: cases.length + 1 },
  });
  assert.equal(all.status, "completed");
  assertSaneExit(all, events, "lenient");
  assertNoLeak(all, events, "lenient");
  const texts = all.messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.equal(texts.length, cases.length);
  const refused = texts.filter((t) => /is outside the workspace$/.test(t)).length;
  assert.equal(refused, cases.filter(([, e]) => e === "refused").length);
  assert.equal(texts.filter((t) => t === `${NOTES_TXT}`).length, 3);
  await sb.intact();
  console.log(`security: ${cases.length} paths to read_file, ${refused} refused as escapes`);
});

Deno.test("delete_file refuses every escaping path, even when approved; nothing outside is deleted", async () => {
  await using sb = await sandbox();
  const tools = demoTools(sb.ws);
  const cases = attacks(sb).filter(([, e]) => e !== "ok");
  let refused = 0;
  for (const [path, expect] of cases) {
    const label = `delete_file ${short(path)}`;
    const { sink, events } = memorySink();
    const options: RunOptions = {
      model: modelFor(probing("delete_file", [path])),
      tools,
      trace: sink,
    };
    const asked = await run(newRun("Delete that file."), options);
    assert.equal(asked.status, "interrupted", label);
    assert.ok(asked.interruption?.type === "approval", label);
    // A person approves: the tool itself must still refuse.
    const s = await run(approve(asked, asked.interruption.callId), options);
    assertSaneExit(s, events, label);
    assertNoLeak(s, events, label);
    const result = s.messages.find((m) => m.role === "tool");
    assert.ok(result?.role === "tool", label);
    assert.ok(!/^deleted /.test(result.content), `${label}: ${result.content}`);
    if (expect === "refused") {
      refused++;
      assert.equal(s.status, "failed", label);
      assert.match(
        s.stopReason!,
        /^delete_file failed permanently: permission denied: .* outside the workspace$/,
        label,
      );
    } else {
      assert.equal(s.status, "completed", `${label}: ${s.stopReason}`);
      assert.match(result.content, /^Error: /, label);
    }
    // No write was recorded as done in the trace.
    assert.ok(!events.some((e) => e.type === "tool_result" && e.ok), label);
    await sb.intact();
  }
  // The effects log is the harness's: not deletable by any spelling.
  for (
    const path of [
      EFFECTS_LOG,
      `./${EFFECTS_LOG}`,
      `sub/../${EFFECTS_LOG}`,
      join(sb.ws.dir, EFFECTS_LOG),
    ]
  ) {
    await Deno.writeTextFile(join(sb.ws.dir, EFFECTS_LOG), "");
    const options: RunOptions = { model: modelFor(probing("delete_file", [path])), tools };
    const asked = await run(newRun("Delete the log."), options);
    assert.ok(asked.interruption?.type === "approval");
    const s = await run(approve(asked, asked.interruption.callId), options);
    assert.ok(await exists(join(sb.ws.dir, EFFECTS_LOG)), path);
    const result = s.messages.find((m) => m.role === "tool")?.content ?? "";
    assert.match(result, /^Error: \S+ belongs to the harness\. Nothing was deleted\.$/, path);
  }
  await Deno.remove(join(sb.ws.dir, EFFECTS_LOG));
  await sb.intact();
  console.log(
    `security: ${cases.length} paths to delete_file (approved), ${refused} refused as escapes`,
  );
});

Deno.test("a rejected write is never reported as done", async () => {
  await using f = await fixture("destructive");
  for (const reason of [undefined, "keep the logs"]) {
    const { sink, events } = memorySink();
    const options: RunOptions = { model: f.model, tools: f.tools, trace: sink };
    const asked = await run(newRun("Free some space."), options);
    assert.ok(asked.interruption?.type === "approval");
    const id = asked.interruption.callId;
    const done = await run(reject(asked, id, reason), options);
    assert.equal(done.status, "completed");
    assertSaneExit(done, events, "rejected");
    const text = done.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content;
    assert.match(text ?? "", /declined/);
    assert.match(text ?? "", /not run and nothing was changed/);
    assert.doesNotMatch(text ?? "", /^deleted/);
    assert.equal(done.output, DECLINED_ANSWER);
    assert.ok(!events.some((e) => e.type === "tool_start" && e.toolName === "delete_file"));
    assert.ok(!events.some((e) => e.type === "tool_result" && e.toolName === "delete_file"));
    assert.deepEqual(await readEffects(f.ws), []);
    assert.ok(await exists(join(f.ws.dir, "access.log")));
  }
});

Deno.test("an uncertain write (in flight at a crash) is never reported as done on resume", async () => {
  await using f = await fixture("destructive");
  const snapshots: RunState[] = [];
  const store = new MemoryRunStore();
  const saving = {
    save: (
      s: Readonly<RunState>,
    ) => (snapshots.push(structuredClone(s) as RunState), store.save(s)),
    load: (id: string) => store.load(id),
  };
  const options: RunOptions = { model: f.model, tools: f.tools, store: saving };
  const asked = await run(newRun("Free some space."), options);
  assert.ok(asked.interruption?.type === "approval");
  const id = asked.interruption.callId;
  const finished = await run(approve(asked, id), options);
  assert.equal(finished.status, "completed");
  assert.equal((await readEffects(f.ws)).length, 1);
  // The process "died" right after committing the intent: the write is in
  // flight, its effect happened, its result was never recorded.
  const crashed = snapshots.findLast((s) =>
    s.inFlight.includes(id) && !s.messages.some((m) => m.role === "tool" && m.tool_call_id === id)
  );
  assert.ok(crashed, "no snapshot with the write in flight");
  const resumeOptions = (): RunOptions & { events: TraceEvent[] } => {
    const { sink, events } = memorySink();
    return { model: f.model, tools: f.tools, trace: sink, events };
  };

  // Resumed (twice, no verdict): it asks, it never runs again, it never says done.
  let r = JSON.parse(JSON.stringify(crashed)) as RunState;
  for (let i = 0; i < 2; i++) {
    const o = resumeOptions();
    r = await run(r, o);
    assert.equal(r.status, "interrupted");
    assert.ok(r.interruption?.type === "approval");
    assert.equal(r.interruption.why, "uncertain_effect");
    assert.equal(r.interruption.callId, id);
    assert.match(r.stopReason!, /its effect is uncertain/);
    assert.ok(o.events.some((e) => e.type === "approval_required" && e.why === "uncertain_effect"));
    assert.ok(!o.events.some((e) => e.type === "tool_start"));
    assert.ok(!r.messages.some((m) => m.role === "tool" && m.tool_call_id === id));
    assertWellFormed(r.messages, "uncertain");
  }
  assert.equal((await readEffects(f.ws)).length, 1);

  // Rejected: the words say it may or may not have happened, never that it was done.
  const o1 = resumeOptions();
  const declined = await run(reject(r, id), o1);
  assert.equal(declined.status, "completed");
  const text = declined.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content ??
    "";
  assert.match(text, /may or may not have taken effect/);
  assert.match(text, /Do not report it as done/);
  assert.doesNotMatch(text, /nothing was changed/);
  assert.doesNotMatch(text, /^deleted/);
  assert.deepEqual(declined.inFlight, []);
  assert.ok(
    !o1.events.some((e) => e.type === "tool_result" && e.ok && e.toolName === "delete_file"),
  );
  assertSaneExit(declined, o1.events, "uncertain rejected", r.costUsd);

  // Approved: it runs again and reports what really happened now (nothing).
  const o2 = resumeOptions();
  const retried = await run(approve(r, id), o2);
  assert.equal(retried.status, "completed");
  const again = retried.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content ??
    "";
  assert.equal(again, "Error: no such file: access.log. Nothing was deleted.");
  assert.equal((await readEffects(f.ws)).length, 1);
});

const KEY = `sk-reins-${crypto.randomUUID()}`;
const CUSTOM_KEY = `ck-${crypto.randomUUID()}`;

type Echo =
  | "401"
  | "403"
  | "400-json"
  | "404-text"
  | "429"
  | "500"
  | "502-cut"
  | "status-text"
  | "200-not-json"
  | "200-usage"
  | "network";

/** An endpoint that answers turn 1 normally, then echoes the credentials back. */
function echoing(mode: Echo, check: (headers: Headers) => void): typeof fetch {
  const inner = scriptedFetch();
  let n = 0;
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    check(headers);
    if (n++ === 0) return await inner(input, init);
    const all = [...headers].map(([k, v]) => `${k}: ${v}`).join("\n");
    const auth = headers.get("authorization") ?? "";
    const body = (o: unknown, status: number) => new Response(JSON.stringify(o), { status });
    switch (mode) {
      case "401":
      case "403":
        return body({ error: { message: `Invalid credentials: ${all}` } }, Number(mode));
      case "400-json":
        return body({ error: { message: `Header rejected: Authorization: ${auth}` } }, 400);
      case "404-text":
        return new Response(`No route for\n${all}`, { status: 404 });
      case "429":
        return new Response(`slow down ${auth}`, { status: 429, headers: { "retry-after": "0" } });
      case "500":
        return new Response(`upstream said: ${all}`, { status: 500 });
      case "502-cut":
        // The key straddles the 200-character cut of the error detail.
        return new Response(`${"x".repeat(170)}${auth}`, { status: 502 });
      case "status-text":
        return new Response("", { status: 418, statusText: `Teapot ${auth}` });
      case "200-not-json":
        return new Response(`<html>proxy saw ${all}</html>`, { status: 200 });
      case "200-usage":
        return body({
          choices: [{ message: { content: "hi" } }],
          usage: { prompt_tokens: auth, completion_tokens: 1 },
        }, 200);
      case "network":
        throw new TypeError(`error sending request: proxy refused credentials ${auth}`);
    }
  };
}

Deno.test("the API key never appears in the trace, the stored state, stop reasons or errors", async () => {
  const modes: Echo[] = [
    "401",
    "403",
    "400-json",
    "404-text",
    "429",
    "500",
    "502-cut",
    "status-text",
    "200-not-json",
    "200-usage",
    "network",
  ];
  await using f = await fixture("plan");
  let sent = 0;
  const cases: [string, Partial<OpenAIModelOptions>, string][] = [
    ...modes.map((m): [string, Partial<OpenAIModelOptions>, string] => [m, { apiKey: KEY }, KEY]),
    ["custom x-api-key header, 500", { headers: { "x-api-key": CUSTOM_KEY } }, CUSTOM_KEY],
    ["authorization header override, 400", {
      headers: { authorization: `Bearer ${CUSTOM_KEY}` },
    }, CUSTOM_KEY],
  ];
  for (const [name, client, secret] of cases) {
    const mode: Echo = name.startsWith("custom")
      ? "500"
      : name.startsWith("authorization")
      ? "400-json"
      : name as Echo;
    // The part of the secret no other text has: even 8 characters of it is a leak.
    const tail = secret.slice(secret.indexOf("-", 3) + 1);
    const store = new MemoryRunStore();
    const { sink, events } = memorySink();
    const model = createOpenAIModel({
      baseUrl: SCRIPTED_BASE_URL,
      model: "plan",
      maxRetries: 1,
      retryBaseMs: 1,
      ...client,
      fetch: echoing(mode, (h) => {
        // The secret really is sent: the test is not vacuous.
        assert.ok([...h.values()].some((v) => v.includes(secret)), name);
        sent++;
      }),
    });
    const s = await run(newRun("Which file mentions a timeout?"), {
      model,
      tools: f.tools,
      trace: sink,
      store,
    });
    assert.equal(s.status, "failed", name);
    assert.equal(s.turns, 1, name);
    const texts = [
      JSON.stringify(events),
      JSON.stringify(s),
      JSON.stringify(await store.load(s.runId)),
      s.stopReason ?? "",
      s.error ?? "",
    ];
    for (const t of texts) {
      assert.ok(!t.includes(tail.slice(0, 8)), `${name}: secret in ${t.slice(0, 400)}`);
    }
    // Where the echo reached the reason, it is visibly redacted.
    if (!["401", "403"].includes(mode)) {
      assert.match(s.stopReason!, /\[redacted\]/, `${name}: ${s.stopReason}`);
    }
    assert.match(
      s.stopReason!,
      /^model call failed \((auth|bad_request|rate_limited|server|malformed|network)\)/,
    );
  }
  assert.ok(sent >= cases.length * 2);
  console.log(
    `security: ${cases.length} credential-echo cases, ${sent} requests, no secret in any text`,
  );
});
