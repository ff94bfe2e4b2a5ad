// Streamed text in runs: text_delta events for root and child runs that join
// to each reply, a Stop mid-stream, bounded KV writes, the SSE route, and the
// same bill with streaming on or off.
import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { memorySink, type TextDeltaEvent, type TraceEvent } from "../harness/trace.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { DELTA_INTERVAL_MS } from "../kv/delta_coalescer.ts";
import { executeRun } from "../runtime/execute_run.ts";
import { TREE_SCENARIOS } from "../testing/tree_scenarios.ts";
import { researchTool } from "../subagents/research.ts";
import { demoTools } from "../tools/catalog.ts";
import { streamPrinter } from "../cli/stream_printer.ts";
import { fixture } from "./helpers.ts";
import { readUntilStopped, settled, withServer } from "./server_helpers.ts";

const LONG_TASK = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") + ".";

/** The deltas of each run, joined per turn, in turn order. */
function joinedByTurn(events: readonly TraceEvent[]): Map<string, string[]> {
  const out = new Map<string, Map<number, string>>();
  for (const e of events) {
    if (e.type !== "text_delta") continue;
    const turns = out.get(e.runId) ?? new Map<number, string>();
    turns.set(e.turn ?? 0, (turns.get(e.turn ?? 0) ?? "") + e.delta);
    out.set(e.runId, turns);
  }
  return new Map(
    [...out].map(([id, t]) => [id, [...t].sort((a, b) => a[0] - b[0]).map((x) => x[1])]),
  );
}

/** The non-empty texts the run's model replied, in order. */
function replyTexts(state: RunState): string[] {
  return state.messages.flatMap((m) => m.role === "assistant" && m.content ? [m.content] : []);
}

Deno.test("text deltas of root and child runs arrive before run_stopped and join to each reply", async () => {
  await using f = await fixture("research", { scenarios: TREE_SCENARIOS });
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const { sink, events } = memorySink();
    const tools = [researchTool({ workspace: f.ws, scan: { ms: 300 } })];
    const root = await run(newRun("Investigate the workspace."), {
      model: f.model,
      tools,
      store,
      trace: sink,
    });
    assert.equal(root.status, "completed");
    const joined = joinedByTurn(events);
    assert.ok(joined.size >= 2, `deltas of the root and its children, got ${joined.size} runs`);
    for (const [id, texts] of joined) {
      const state = id === root.runId ? root : await store.load(id);
      assert.deepEqual(texts, replyTexts(state), `run ${id}`);
      const stopped = events.findIndex((e) => e.runId === id && e.type === "run_stopped");
      const last = events.findLastIndex((e) => e.runId === id && e.type === "text_delta");
      assert.ok(stopped > last, `run ${id}: a delta after run_stopped`);
    }
    assert.ok([...joined.keys()].some((id) => id !== root.runId));
  } finally {
    kv.close();
  }
});

Deno.test("a Stop mid-stream ends the run interrupted at once, nothing billed, no delta after", async () => {
  // A minute between chunks: only the Stop can end this call soon.
  await using f = await fixture("echo", { chunkMs: 60_000 });
  const ac = new AbortController();
  const { sink, events } = memorySink();
  const trace = (e: TraceEvent) => {
    sink(e);
    if (e.type === "text_delta") ac.abort("stopped by a person");
  };
  let guard: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => guard = setTimeout(() => r("late"), 10_000));
  const done = await Promise.race([
    run(newRun(LONG_TASK), { model: f.model, signal: ac.signal, trace }),
    late,
  ]);
  clearTimeout(guard);
  assert.notEqual(done, "late", "the run went on streaming after the Stop");
  const state = done as RunState;
  assert.equal(state.status, "interrupted");
  assert.equal(state.interruption?.type, "cancelled");
  assert.equal(state.turns, 0);
  assert.equal(state.costUsd, 0);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "run_stopped"]);
});

Deno.test("stored deltas are coalesced into a few writes a second; in-process sinks get every one", async () => {
  await using f = await fixture("echo", { chunkMs: 5 });
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const s = newRun(LONG_TASK);
    await store.save(s);
    const { sink, events } = memorySink();
    const t0 = performance.now();
    const done = await executeRun(store, s.runId, { model: f.model, trace: sink });
    const elapsed = performance.now() - t0;
    const live = events.filter((e): e is TextDeltaEvent => e.type === "text_delta");
    const stored = (await store.events(s.runId)).map((e) => e.event);
    const deltas = stored.filter((e): e is TextDeltaEvent => e.type === "text_delta");
    assert.equal(live.map((e) => e.delta).join(""), done.output);
    assert.equal(deltas.map((e) => e.delta).join(""), done.output);
    assert.ok(live.length > 20, `${live.length} live deltas`);
    // The first at once, then at most one write per interval.
    const bound = 1 + Math.ceil(elapsed / DELTA_INTERVAL_MS);
    assert.ok(deltas.length <= bound, `${deltas.length} stored writes in ${elapsed} ms`);
    assert.ok(deltas.length < live.length);
    assert.equal(stored.at(-1)?.type, "run_stopped");
    // Nothing is written after run_stopped, not even a buffered delta.
    await new Promise((r) => setTimeout(r, DELTA_INTERVAL_MS + 50));
    assert.equal((await store.events(s.runId)).length, stored.length);
  } finally {
    kv.close();
  }
});

Deno.test("GET /runs/:id/events carries the deltas as text_delta events that join to the answer", () =>
  withServer({ chunkMs: 5 }, async (s) => {
    const id = (await s.call("POST", "/runs", { task: LONG_TASK, scenario: "echo" })).body.runId;
    const res = await s.app.request(`/runs/${id}/events`);
    const text = await readUntilStopped(res);
    const blocks = text.split("\n\n").filter((b) => /^data: /m.test(b));
    const deltas = blocks.filter((b) => /^event: text_delta$/m.test(b)).map((b) =>
      JSON.parse(b.split("\n").find((l) => l.startsWith("data: "))!.slice(6)) as TextDeltaEvent
    );
    assert.ok(deltas.length > 0, "no text_delta event on the stream");
    assert.ok(deltas.every((d) => d.type === "text_delta"));
    // Other events stay unnamed (plain `message` events), as before.
    const named = blocks.filter((b) => /^event: /m.test(b)).length;
    assert.equal(named, deltas.length);
    // The published API says the same of the stream.
    const doc = (await s.call("GET", "/openapi.json")).body;
    const said = doc.paths["/runs/{id}/events"].get.responses["200"].description as string;
    assert.match(said, /Only text deltas are named \(`event: text_delta`\)/);
    const view = await settled(s, id);
    assert.equal(deltas.map((d) => d.delta).join(""), view.output);
    assert.ok(blocks.findLastIndex((b) => /text_delta/.test(b)) < blocks.length - 1);
  }));

Deno.test("streaming on or off: the same transcript, usage and cost", async () => {
  const results: RunState[] = [];
  for (const stream of [true, false]) {
    await using f = await fixture("plan", { stream });
    const { sink, events } = memorySink();
    const done = await run(newRun("Which file mentions a timeout?"), {
      model: f.model,
      tools: demoTools(f.ws),
      trace: sink,
    });
    assert.equal(done.status, "completed");
    assert.equal(events.some((e) => e.type === "text_delta"), stream);
    results.push(done);
  }
  const [on, off] = results;
  assert.deepEqual(on.messages, off.messages);
  assert.deepEqual(on.usage, off.usage);
  assert.equal(on.costUsd, off.costUsd);
  assert.equal(on.turns, off.turns);
});

Deno.test("the CLI streams the root's words; parallel children print whole lines under their progress label", () => {
  let out = "";
  const sink = streamPrinter("r1", performance.now(), (s) => out += s);
  const delta = (runId: string, d: string, reset?: boolean) =>
    sink({ type: "text_delta", runId, at: "", delta: d, turn: 1, ...reset ? { reset } : {} });
  const start = (runId: string, toolName: string, callId: string) =>
    sink({ type: "tool_start", runId, at: "", toolName, callId, args: "{}" });
  delta("r1", "Looking");
  delta("r1", " into it.");
  start("r1", "research", "call_0_0");
  start("r1", "research", "call_0_1");
  // Two children stream side by side, cut mid-word by the provider's chunks.
  delta("r1.call_0_0", "errors.log men");
  delta("r1.call_0_1", "notes.txt sa");
  delta("r1.call_0_0", "tions a time");
  delta("r1.call_0_1", "ys the db\nport is 5432");
  delta("r1.call_0_0", "out.");
  delta("r1.call_0_1", "", true); // a retried call: its unprinted words are void
  delta("r1.call_0_1", "Port 5432.");
  sink({
    type: "run_stopped",
    runId: "r1.call_0_0",
    at: "",
    status: "completed",
    reason: "done",
    interruption: null,
    turns: 1,
    costUsd: 0,
  });
  sink({
    type: "run_stopped",
    runId: "r1.call_0_1",
    at: "",
    status: "completed",
    reason: "done",
    interruption: null,
    turns: 1,
    costUsd: 0,
  });
  delta("r1", "Done.");
  const lines = out.split("\n").map((l) => l.replace(/ {2}\(t\+\d+ ms\)$/, ""));
  assert.deepEqual(lines, [
    "  root> Looking into it.",
    "  tool research({})",
    "  tool research({})",
    "  [research:call_0_1] notes.txt says the db",
    "  [research:call_0_1] ↺ retrying",
    "  [research:call_0_0] errors.log mentions a timeout.",
    "  [research:call_0_0] stopped completed: done",
    "  [research:call_0_1] Port 5432.",
    "  [research:call_0_1] stopped completed: done",
    "  root> Done.",
  ]);
});

Deno.test("a child's long line is printed up to its last whole word", () => {
  let out = "";
  const sink = streamPrinter("r1", performance.now(), (s) => out += s);
  sink({ type: "tool_start", runId: "r1", at: "", toolName: "research", callId: "c", args: "{}" });
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
  for (let i = 0; i < words.length; i += 7) {
    sink({ type: "text_delta", runId: "r1.c", at: "", delta: words.slice(i, i + 7), turn: 1 });
  }
  sink(
    {
      type: "turn",
      runId: "r1.c",
      at: "",
      turn: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
      costUsd: 0,
      turnCostUsd: 0,
      finish: "stop",
      ms: 1,
    } as never,
  );
  const lines = out.trimEnd().split("\n").slice(1).filter((l) => l.startsWith("  [research:c] w"));
  assert.ok(lines.length >= 3, out);
  assert.equal(lines.map((l) => l.slice("  [research:c] ".length)).join(" "), words);
  for (const l of lines) assert.ok(l.length <= 16 + 100, l);
});
