// The run inspector through app.request() (no browser, no JavaScript): the
// server-rendered run list and run page, the five exits in words, escaping
// of hostile run content, the bearer token, the fragments the script reads.
// The real-browser test is tests/browser/inspector_browser_test.ts.
import assert from "node:assert/strict";
import { demoAgents } from "../demo/agents.ts";
import { defineAgent } from "../subagents/define_agent.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { escapeHtml, formatUsd, html, statusWords } from "../server/inspector/mod.ts";
import { settled, waitFor, withServer } from "./server_helpers.ts";

const HOSTILE = `<script>alert("pwned")</script><img src=x onerror="alert(1)"> & 'quotes'`;
/** An agent whose instructions are hostile text too (they show in the transcript). */
const hostileAgent = defineAgent({ name: "hostile", instructions: `sys ${HOSTILE}`, tools: [] });

async function page(
  s: { app: { request(path: string, init?: RequestInit): Promise<Response> } },
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await s.app.request(path, { headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Only the page's own script tag: nothing from a run became markup. */
function assertNoInjectedMarkup(text: string): void {
  assert.equal(text.match(/<script/g)?.length, 1, "one <script> (the page's own)");
  assert.ok(text.includes('<script type="module" src="/ui/static/main.js"></script>'));
  assert.ok(!text.includes("<img"), "no <img> from the run");
  assert.ok(!/onerror="/.test(text), "no event handler attribute from the run");
}

// Each run one second apart, so "newest first" never hinges on a shared millisecond.
let clock = Date.parse("2026-01-01T00:00:00Z");
function stored(task: string, patch: Partial<RunState>): RunState {
  const at = new Date(clock += 1000).toISOString();
  return { ...newRun(task, { model: "plan" }), createdAt: at, updatedAt: at, ...patch };
}

Deno.test("escapeHtml and html`` escape every interpolation; Html passes through", () => {
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
  );
  const inner = html`<b>${"<i>"}</b>`;
  assert.equal(
    String(html`<p title="${'"x"'}">${inner}${[1, "<", null, false, undefined]}</p>`),
    '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>1&lt;</p>',
  );
  assert.equal(formatUsd(0.0012346), "$0.001235");
  assert.equal(formatUsd(0.25), "$0.250000");
  assert.equal(formatUsd(3), "$3.00");
});

Deno.test("the five exits, running and waiting read in words", () => {
  const w = (run: Parameters<typeof statusWords>[0]) => statusWords(run);
  assert.deepEqual(w({ status: "running" }), { tone: "running", label: "Running", detail: "" });
  assert.equal(
    statusWords({ status: "running" }, { rootId: "r", reason: "closing time", at: 0 }).detail,
    "Stop requested: closing time",
  );
  assert.deepEqual(w({ status: "completed", stopReason: "the model answered" }), {
    tone: "done",
    label: "Completed",
    detail: "the model answered",
  });
  assert.deepEqual(w({ status: "failed", error: "model call failed (http): 500" }), {
    tone: "failed",
    label: "Failed",
    detail: "model call failed (http): 500",
  });
  assert.equal(
    w({ status: "max_turns_exceeded", stopReason: "10 turns" }).label,
    "Turn limit reached",
  );
  assert.equal(w({ status: "budget_exceeded", stopReason: "budget spent" }).label, "Budget spent");
  const waiting = w({
    status: "interrupted",
    runId: "root",
    interruption: {
      type: "approval",
      callId: "c1",
      toolName: "delete_file",
      args: {},
      why: "needs_approval",
      runId: "root.c0",
    },
  });
  assert.deepEqual(waiting, {
    tone: "waiting",
    label: "Waiting for your verdict",
    detail: "delete_file needs your approval (in a subagent)",
  });
  assert.match(
    w({
      status: "interrupted",
      interruption: {
        type: "approval",
        callId: "c",
        toolName: "t",
        args: {},
        why: "uncertain_effect",
      },
    }).detail,
    /may or may not have run/,
  );
  assert.deepEqual(
    w({ status: "interrupted", interruption: { type: "cancelled", reason: "enough" } }),
    {
      tone: "stopped",
      label: "Stopped",
      detail: "enough",
    },
  );
});

Deno.test("GET / without JavaScript: the run list, each exit in words, escaped, with a CSP", () =>
  withServer({}, async (s) => {
    const runs = [
      stored("finished task", {
        status: "completed",
        stopReason: "the model answered",
        costUsd: 0.0042,
        turns: 3,
      }),
      stored("broken task", {
        status: "failed",
        error: "model call failed (http): 500",
        stopReason: "model call failed (http): 500",
      }),
      stored("long task", {
        status: "max_turns_exceeded",
        interruption: { type: "max_turns" },
        stopReason: "turn limit: 2 turns made",
      }),
      stored("pricey task", {
        status: "budget_exceeded",
        interruption: { type: "max_budget" },
        stopReason: "budget spent: $0.01 of $0.01",
      }),
      stored("stopped task", {
        status: "interrupted",
        interruption: { type: "cancelled", reason: "closing time" },
        stopReason: "cancelled: closing time",
      }),
      stored(HOSTILE, { status: "running" }),
    ];
    for (const r of runs) await s.store.save(r);
    const child = {
      ...newRun("child task", {
        parent: { runId: runs[0].runId, rootId: runs[0].runId, callId: "call_0_0" },
      }),
    };
    await s.store.save(child);

    const res = await page(s, "/");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
    assert.match(res.text, /data-page="list"/);
    for (
      const label of [
        "Completed",
        "Failed",
        "Turn limit reached",
        "Budget spent",
        "Stopped",
        "Running",
      ]
    ) {
      assert.ok(res.text.includes(`>${label}</span>`), label);
    }
    for (
      const why of [
        "the model answered",
        "model call failed (http): 500",
        "turn limit: 2 turns made",
        "budget spent: $0.01 of $0.01",
        "closing time",
      ]
    ) {
      assert.ok(res.text.includes(escapeHtml(why)), why);
    }
    assert.ok(res.text.includes("$0.004200"), "cost so far");
    assert.ok(res.text.includes("1 subagent<"), "the child is counted, not listed");
    assert.ok(!res.text.includes("child task"));
    // Newest first: the hostile (last saved) run leads.
    assert.ok(res.text.indexOf(runs[5].runId) < res.text.indexOf(runs[0].runId));
    assert.ok(res.text.includes(escapeHtml(HOSTILE)));
    assertNoInjectedMarkup(res.text);
  }));

Deno.test("GET /ui/runs/:id without JavaScript: state, tree, transcript, all escaped", () =>
  withServer({ agents: [...demoAgents(), hostileAgent] }, async (s) => {
    // echo answers the task verbatim: the hostile text is the model's output too.
    const id =
      (await s.call("POST", "/runs", { agent: "hostile", task: HOSTILE, scenario: "echo" }))
        .body.runId;
    await settled(s, id);
    const res = await page(s, `/ui/runs/${id}`);
    assert.equal(res.status, 200);
    assert.match(res.text, new RegExp(`data-run-id="${id}"`));
    assert.ok(res.text.includes(">Completed</span>"));
    assert.ok(res.text.includes('<ol class="transcript">'));
    // The heading, the task, the system prompt, the model's reply and the answer.
    assert.equal(res.text.split(escapeHtml(HOSTILE)).length - 1, 5);
    assert.ok(res.text.includes('class="msg system"'));
    assert.ok(res.text.includes('class="msg assistant"'));
    assert.ok(res.text.includes(`data-node="${id}"`));
    // A completed root takes a follow-up: the reply box (no verdict awaited, no Stop).
    assert.match(res.text, /<form class="reply" data-action="reply" data-run-id="[^"]+">/);
    assert.ok(!res.text.includes('data-action="verdict"'));
    assertNoInjectedMarkup(res.text);
  }));

Deno.test("a run awaiting a verdict: the call, Approve and Reject; a running tree: Stop", () =>
  withServer({ scan: { ms: 2000 } }, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "Free space", scenario: "destructive" })).body.runId;
    const waiting = await settled(s, id);
    const res = await page(s, `/ui/runs/${id}`);
    assert.ok(res.text.includes(">Waiting for your verdict</span>"));
    assert.ok(res.text.includes(`data-call-id="${waiting.interruption.callId}"`));
    assert.ok(res.text.includes('value="approve"') && res.text.includes('value="reject"'));
    assert.ok(
      res.text.includes("&quot;path&quot;: &quot;access.log&quot;"),
      "the call's arguments",
    );
    // The transcript so far: task, list_files and its result, the delete_file call.
    assert.ok(res.text.includes('<span class="call-name">delete_file</span>'));
    assert.ok(!res.text.includes('data-action="stop"'));

    const slow =
      (await s.call("POST", "/runs", { task: "Scan.", scenario: "research-slow" })).body.runId;
    await waitFor(async () => {
      const nodes = (await s.call("GET", `/runs/${slow}/tree`)).body.nodes;
      return nodes.length === 3 ? true : undefined;
    }, "the children");
    const running = await page(s, `/ui/runs/${slow}`);
    assert.ok(running.text.includes('data-action="stop"'));
    assert.equal(running.text.match(/class="node /g)?.length, 3);
    assert.equal(running.text.match(/data-tools-for=/g)?.length, 3);
    await s.call("POST", `/runs/${slow}/stop`, { reason: "enough" });
    await settled(s, slow);
    await s.worker.executor.idle();
    const stopped = await page(s, `/ui/runs/${slow}`);
    assert.equal(stopped.text.match(/data-status="interrupted"/g)?.length, 3);
    assert.ok(stopped.text.includes('data-action="resume"'));
  }));

Deno.test("the fragments the script reads: list and run, as JSON", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", { task: "t", scenario: "plan" })).body.runId;
    await settled(s, id);
    const list = await s.call("GET", "/ui/parts/runs");
    assert.equal(list.status, 200);
    assert.equal(list.body.count, 1);
    assert.equal(list.body.counts.done, 1);
    assert.match(list.body.html, new RegExp(id));
    const parts = await s.call("GET", `/ui/parts/runs/${id}`);
    assert.equal(parts.status, 200);
    assert.equal(parts.body.rootId, id);
    assert.equal(parts.body.messageCount, 7); // the demo agent's instructions first
    assert.deepEqual(parts.body.nodes, [{ runId: id, status: "completed", depth: 0 }]);
    for (const k of ["summary", "controls", "tree", "transcript"]) {
      assert.equal(typeof parts.body[k], "string", k);
    }
    assert.equal((await s.call("GET", `/ui/parts/runs/${crypto.randomUUID()}`)).status, 404);
    assert.equal((await s.call("GET", "/ui/parts/runs/bad%20id")).body.error.field, "id");
  }));

Deno.test("unknown run and bad id: readable error pages", () =>
  withServer({}, async (s) => {
    const missing = await page(s, `/ui/runs/${crypto.randomUUID()}`);
    assert.equal(missing.status, 404);
    assert.match(missing.text, /No such run/);
    const bad = await page(s, `/ui/runs/${encodeURIComponent("<script>x</script>")}`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Not a run id/);
    assertNoInjectedMarkup(bad.text);
  }));

Deno.test("with a token: pages and assets load, run data only with the token", () =>
  withServer({ token: "inspector-s3cret" }, async (s) => {
    const id =
      (await s.call("POST", "/runs", { task: "secret task", scenario: "plan" })).body.runId;
    await settled(s, id);
    for (const path of ["/", `/ui/runs/${id}`]) {
      const locked = await page(s, path);
      assert.equal(locked.status, 200, path);
      assert.match(locked.text, /data-locked="true"/);
      assert.match(locked.text, /needs a bearer token/);
      assert.ok(!locked.text.includes("secret task"), `${path} shows no run data`);
      const open = await page(s, path, { authorization: "Bearer inspector-s3cret" });
      assert.ok(open.text.includes("secret task"), `${path} with the token`);
      assert.ok(!open.text.includes('data-locked="true"'));
      const wrong = await page(s, path, { authorization: "Bearer nope" });
      assert.ok(!wrong.text.includes("secret task"));
    }
    for (const path of ["/ui/parts/runs", `/ui/parts/runs/${id}`]) {
      const res = await page(s, path);
      assert.equal(res.status, 401, path);
      assert.equal(JSON.parse(res.text).error.code, "unauthorized");
    }
    const js = await page(s, "/ui/static/main.js");
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    // Every module the entry imports, by relative URL, is served too.
    const imported = [...js.text.matchAll(/from "\.\/([a-z_]+\.js)"/g)].map(([, name]) => name);
    assert.ok(imported.includes("api.js"));
    const api = await page(s, "/ui/static/api.js");
    assert.equal(api.status, 200);
    assert.equal(api.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(api.text, /sessionStorage/);
    assert.match(api.text, /Bearer /);
    const css = await page(s, "/ui/static/inspector.css");
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    // The API itself still refuses without the token.
    assert.equal((await page(s, "/runs")).status, 401);
  }));

Deno.test("the page's script modules load and every import among them is served", async () => {
  const { ASSETS } = await import("../server/inspector/mod.ts");
  const scripts = Object.keys(ASSETS).filter((name) => name.endsWith(".js"));
  for (const name of scripts) {
    for (const [, dep] of ASSETS[name].text.matchAll(/^import .* from "\.\/([^"]+)";$/gm)) {
      assert.ok(scripts.includes(dep), `${name} imports ${dep}, which is served`);
    }
    const url = new URL(`../server/inspector/static/${name}`, import.meta.url);
    assert.equal(await Deno.readTextFile(url), ASSETS[name].text, `${name} served as is`);
    if (name === "main.js") {
      // The entry parses and links its imports, then needs a DOM to run.
      await assert.rejects(import(url.href), (e) => e instanceof ReferenceError);
    } else {
      await import(url.href); // parses, links, and touches no DOM on load
    }
  }
});

/** The tool rows the server put under run `runId` in the tree. */
function toolRowsOf(
  text: string,
  runId: string,
): { callId: string; state: string; label: string }[] {
  const slot = text.split(`data-tools-for="${runId}">`)[1]?.split("</li>")[0] ?? "";
  const rows = slot.matchAll(
    /data-call-id="([^"]*)"\s+data-state="([^"]*)"[^]*?class="tool-label" title="([^"]*)"/g,
  );
  return [...rows].map(([, callId, state, label]) => ({ callId, state, label }));
}

Deno.test("the tree says a research call waits on its child's verdict, then that it was rejected", () =>
  withServer({}, async (s) => {
    const id = (await s.call("POST", "/runs", {
      task: "Tidy up.",
      scenario: "research-approval",
    })).body.runId;
    const waiting = await settled(s, id);
    const child = waiting.interruption.runId;
    const before = await page(s, `/ui/runs/${id}`);
    const [research] = toolRowsOf(before.text, id);
    assert.equal(research.state, "child-waiting", "not 'done' while the child waits");
    assert.match(research.label, /waits on your verdict on delete_file/);
    assert.ok(research.label.includes(child.slice(id.length + 1)), "names the child");
    const held = toolRowsOf(before.text, child).find((r) =>
      r.callId === waiting.interruption.callId
    );
    assert.equal(held?.state, "waiting");

    const reason = "keep the logs <for> the audit";
    const res = await s.call("POST", `/runs/${id}/reject`, {
      callId: waiting.interruption.callId,
      reason,
    });
    assert.equal(res.status, 202);
    await settled(s, id);
    const after = await page(s, `/ui/runs/${id}`);
    const rejected = toolRowsOf(after.text, child).find((r) =>
      r.callId === waiting.interruption.callId
    );
    assert.equal(rejected?.state, "rejected", "no longer awaits a verdict");
    assert.ok(rejected?.label.includes(escapeHtml(reason)), "with the reason");
    assert.ok(!after.text.includes(">awaits your verdict<"));
    assert.equal(toolRowsOf(after.text, id)[0].state, "ok");
  }));

Deno.test("the tree names each run by its whole path below the root; the full id on hover", () =>
  withServer({ scan: { ms: 5000 } }, async (s) => {
    const id = (await s.call("POST", "/runs", {
      task: "Dig.",
      scenario: "research-deep-slow",
    })).body.runId;
    const leaves = await waitFor(async () => {
      const nodes = (await s.call("GET", `/runs/${id}/tree`)).body.nodes as {
        runId: string;
        depth: number;
      }[];
      const deep = nodes.filter((n) => n.depth === 2).map((n) => n.runId);
      return deep.length === 2 ? deep : undefined;
    }, "two leaves");
    const res = await page(s, `/ui/runs/${id}`);
    await s.call("POST", `/runs/${id}/stop`, {});
    await settled(s, id);
    await s.worker.executor.idle();
    const labels = [
      ...res.text.matchAll(
        /class="node-id" href="[^"]*" title="([^"]*)">\s*(?:<span class="node-agent">([^<]*)<\/span>)?\s*([^<]*?)\s*</g,
      ),
    ].map(([, title, agent, label]) => ({ title, agent, label }));
    // Each node is labelled by its agent: the root's, then research below it.
    assert.deepEqual(labels.map((l) => l.agent), ["demo-deep", "research", "research", "research"]);
    const leafLabels = labels.filter((l) => leaves.includes(l.title)).map((l) => l.label);
    assert.equal(leafLabels.length, 2);
    assert.notEqual(leafLabels[0], leafLabels[1]);
    for (const l of labels.slice(1)) assert.equal(`${id}.${l.label}`, l.title);
  }));

Deno.test("the tree's tool-row layout is scoped: transcript tool results take the full width", async () => {
  const { ASSETS } = await import("../server/inspector/mod.ts");
  const css = ASSETS["inspector.css"].text;
  // The transcript's results are `<li class="msg tool">`: a bare `.tool` rule would grid them.
  const bare = css.split("}").map((rule) => rule.split("{")[0]).flatMap((sel) => sel.split(","))
    .map((sel) => sel.trim()).filter((sel) => /^\.tool([.:\s]|$)/.test(sel));
  assert.deepEqual(bare, []);
  assert.match(css, /\.tools > \.tool \{/);
});
