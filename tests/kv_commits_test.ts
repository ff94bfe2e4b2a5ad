// How many KV commits a durable turn costs: a real KV whose commits are
// counted by a wrapper, a run whose store and trace are the same KvRunStore.
import assert from "node:assert/strict";
import { newRun, type RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { RunConflictError } from "../harness/errors.ts";
import { countingKv, listFiles, runawayModel, withKv } from "./kv_helpers.ts";
import { KvEventLog, PROGRESS_LIVE_MS, TEXT_LIVE_MS, TOOL_START_LIVE_MS } from "../kv/events.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { demoTools } from "../tools/catalog.ts";
import { sleep } from "../harness/sleep.ts";

Deno.test("a durable turn costs at most 2 KV commits, its trace events included", () =>
  withKv(async (raw) => {
    const { kv, commits } = countingKv(raw);
    const store = new KvRunStore(kv);
    const state = newRun("count the commits");
    await store.save(state); // created first, as startRun and the server do
    const before = commits.n;
    const done = await run(state, {
      model: runawayModel(),
      tools: [listFiles],
      limits: { maxTurns: 20, maxBudgetUsd: 1 },
      store,
      trace: store.traceSink(),
    });
    assert.equal(done.status, "max_turns_exceeded");
    assert.equal(done.turns, 20);
    const used = commits.n - before;
    // Per turn: the reply's save (with its `turn` event) and the tool result's save
    // (with `tool_start`, `tool_result` and the next call's marker); once per run()
    // the save marking its first model call; then the exit's save (with `run_stopped`).
    assert.ok(used <= 2 * done.turns + 2, `${used} commits for ${done.turns} turns`);
    const events = await store.events(state.runId);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i));
    assert.equal(events.filter((e) => e.event.type === "turn").length, 20);
    assert.equal(events.filter((e) => e.event.type === "tool_result").length, 20);
    assert.equal(events.at(-1)?.event.type, "run_stopped");
  }));

Deno.test("a final answer without tool calls rides in the exit's save", () =>
  withKv(async (raw) => {
    const ws = await createWorkspace();
    try {
      const { kv, commits } = countingKv(raw);
      const store = new KvRunStore(kv);
      const state = newRun("Which file mentions a timeout?");
      await store.save(state);
      const saved: string[] = [];
      const watched = {
        save: async (s: Readonly<typeof state>) => {
          const last = s.messages.at(-1);
          saved.push(
            `${s.status}:${last?.role}${
              last?.role === "assistant" && !last.tool_calls ? ":answer" : ""
            }`,
          );
          await store.save(s);
        },
        load: (id: string) => store.load(id),
      };
      const before = commits.n;
      const done = await run(state, {
        model: scriptedModel("plan", { stream: false }),
        tools: demoTools(ws),
        limits: { maxTurns: 10, maxBudgetUsd: 1 },
        store: watched,
        trace: store.traceSink(),
      });
      assert.equal(done.status, "completed");
      // The first call's marker; per turn with tools, its reply and its result (with the
      // next call's marker); then the answer and the exit in one.
      assert.deepEqual(saved, [
        "running:user",
        "running:assistant",
        "running:tool",
        "running:assistant",
        "running:tool",
        "completed:assistant:answer",
      ]);
      assert.equal(commits.n - before, 6);
      const stored = await new KvRunStore(raw).load(state.runId);
      assert.equal(stored.output, done.output);
      assert.deepEqual(stored.messages, done.messages);
      const events = (await store.events(state.runId)).map((e) => e.event.type);
      assert.equal(events.filter((t) => t === "turn").length, 3);
      assert.equal(events.at(-1), "run_stopped");
    } finally {
      await ws.remove();
    }
  }));

Deno.test("a progress event is committed while its tool still runs", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const state = newRun("watch the progress");
    await store.save(state);
    let seenDuringTool: string[] = [];
    const slow = watchedListFiles(kv, state.runId, 50, (seen) => seenDuringTool = seen, true);
    await run(state, {
      model: runawayModel(),
      tools: [slow],
      limits: { maxTurns: 1, maxBudgetUsd: 1 },
      store,
      trace: store.traceSink(),
    });
    assert.deepEqual(seenDuringTool, ["turn", "tool_start", "tool_progress"]);
  }));

Deno.test("a slow tool's start is committed while it runs, a fast one's rides in its save", () =>
  withKv(async (raw) => {
    const { kv, commits } = countingKv(raw);
    const store = new KvRunStore(kv);
    const state = newRun("watch a slow tool");
    await store.save(state);
    let seenDuringTool: string[] = [];
    const slow = watchedListFiles(
      raw,
      state.runId,
      TOOL_START_LIVE_MS + 150,
      (seen) => seenDuringTool = seen,
    );
    const before = commits.n;
    await run(state, {
      model: runawayModel(),
      tools: [slow],
      limits: { maxTurns: 1, maxBudgetUsd: 1 },
      store,
      trace: store.traceSink(),
    });
    assert.ok(seenDuringTool.includes("tool_start"), `seen while it ran: ${seenDuringTool}`);
    const slowCommits = commits.n - before;
    // The same turn with an instant tool: its tool_start waits for the result's save.
    const fast = newRun("a fast tool");
    await store.save(fast);
    const beforeFast = commits.n;
    await run(fast, {
      model: runawayModel(),
      tools: [listFiles],
      limits: { maxTurns: 1, maxBudgetUsd: 1 },
      store,
      trace: store.traceSink(),
    });
    assert.equal(slowCommits, commits.n - beforeFast + 1, "one commit more, for the live start");
  }));

Deno.test("a refused final save keeps the trace but not the losing executor's run_stopped", () =>
  withKv(async (kv) => {
    const stale = new KvRunStore(kv);
    const state = newRun("two executors");
    await stale.save(state); // from now on, stale holds this run's events for its next save
    const other = new KvRunStore(kv);
    const moved = await other.load(state.runId);
    moved.turns = 1;
    await other.save(moved); // the run moved on elsewhere
    const sink = stale.traceSink();
    const at = new Date().toISOString();
    await sink({
      type: "tool_progress",
      runId: state.runId,
      at,
      callId: "c",
      toolName: "t",
      label: "x",
    });
    await sink({
      type: "run_stopped",
      runId: state.runId,
      at,
      status: "interrupted",
      reason: "lost the lease",
      interruption: { type: "cancelled", reason: "lost the lease" },
      turns: 0,
      costUsd: 0,
    });
    await assert.rejects(stale.save({ ...state, status: "interrupted" }), RunConflictError);
    const types = (await other.events(state.runId)).map((e) => e.event.type);
    assert.deepEqual(types, ["tool_progress"]);
  }));

/**
 * `list_files` that waits `ms` (reporting progress first when asked), then
 * hands what another reader of the KV sees of the run's trace to `seen`.
 */
function watchedListFiles(
  kv: Deno.Kv,
  runId: string,
  ms: number,
  seen: (types: string[]) => void,
  progress = false,
) {
  return {
    ...listFiles,
    name: "list_files",
    async run(args: unknown, ctx: Parameters<typeof listFiles.run>[1]) {
      if (progress) ctx.progress("half way", 0.5);
      await sleep(ms);
      seen((await new KvRunStore(kv).events(runId)).map((e) => e.event.type));
      return listFiles.run(args as never, ctx);
    },
  };
}

Deno.test("a streamed reply's words ride in its save; a slow one's are committed while it streams", () =>
  withKv(async (raw) => {
    const ws = await createWorkspace();
    const planTools = demoTools(ws);
    try {
      // plan answers in words at its last turn; streamed at once, then paced.
      const commitsOf = async (chunkMs: number) => {
        const { kv, commits } = countingKv(raw);
        const store = new KvRunStore(kv);
        const state = newRun("Which file mentions a timeout?");
        await store.save(state);
        const seenWhileStreaming: string[] = [];
        const before = commits.n;
        const done = await run(state, {
          model: scriptedModel("plan", { chunkMs }),
          tools: planTools,
          limits: { maxTurns: 10, maxBudgetUsd: 1 },
          store,
          trace: async (e) => {
            await store.traceSink()(e);
            if (e.type === "text_delta" && chunkMs > 0 && !seenWhileStreaming.length) {
              await sleep(TEXT_LIVE_MS + 100);
              const stored = await new KvRunStore(raw).events(state.runId);
              seenWhileStreaming.push(...stored.map((s) => s.event.type));
            }
          },
        });
        assert.equal(done.status, "completed");
        const events = (await store.events(state.runId)).map((e) => e.event);
        const text = events.filter((e) => e.type === "text_delta").map((e) => e.delta).join("");
        assert.equal(text, done.output);
        return { commits: commits.n - before, seenWhileStreaming };
      };
      const fast = await commitsOf(0);
      const plain = await (async () => {
        const { kv, commits } = countingKv(raw);
        const store = new KvRunStore(kv);
        const state = newRun("Which file mentions a timeout?");
        await store.save(state);
        const before = commits.n;
        await run(state, {
          model: scriptedModel("plan", { stream: false }),
          tools: planTools,
          limits: { maxTurns: 10, maxBudgetUsd: 1 },
          store,
          trace: store.traceSink(),
        });
        return commits.n - before;
      })();
      assert.equal(fast.commits, plain, "an instant stream costs no commit of its own");
      const slow = await commitsOf(20);
      assert.ok(slow.seenWhileStreaming.includes("text_delta"), `${slow.seenWhileStreaming}`);
    } finally {
      await ws.remove();
    }
  }));

/** Saves `state` and runs it for two turns of runaway, traced into `store`. */
async function twoTracedTurns(store: KvRunStore, state: RunState) {
  await store.save(state);
  return await run(state, {
    model: runawayModel(),
    tools: [listFiles],
    limits: { maxTurns: 2, maxBudgetUsd: 1 },
    store,
    trace: store.traceSink(),
  });
}

Deno.test("a new run's trace starts at seq 0 unread; an event stored under its id before is kept", () =>
  withKv(async (kv) => {
    const state = newRun("stale trace");
    // An event under the id before the run exists (a deleted run's, another writer's).
    await new KvEventLog(kv).append({
      type: "tool_progress",
      runId: state.runId,
      at: "",
      callId: "c0",
      toolName: "t",
      label: "before",
    });
    const store = new KvRunStore(kv);
    assert.equal((await twoTracedTurns(store, state)).turns, 2);
    const events = await store.events(state.runId);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i));
    assert.equal(events[0].event.type === "tool_progress" && events[0].event.label, "before");
    assert.equal(events.filter((e) => e.event.type === "turn").length, 2);
    assert.equal(events.at(-1)?.event.type, "run_stopped");
  }));

Deno.test("a new run's trace is appended without a look at what is stored", () =>
  withKv(async (raw) => {
    // Its log starts at seq 0: no list of the event keys to find the next one.
    let lists = 0;
    const kv = new Proxy(raw, {
      get(target, prop) {
        if (prop === "list") lists++;
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const state = newRun("fresh trace");
    const store = new KvRunStore(kv);
    assert.equal((await twoTracedTurns(store, state)).turns, 2);
    assert.equal(lists, 0);
    assert.ok((await new KvRunStore(raw).events(state.runId)).length > 4);
  }));

Deno.test("a tool's frequent progress costs one commit per quiet spell, every event kept", () =>
  withKv(async (raw) => {
    const { kv, commits } = countingKv(raw);
    const store = new KvRunStore(kv);
    const state = newRun("report often");
    await store.save(state); // from now on its events wait for the next save
    const sink = store.traceSink();
    const before = commits.n;
    const at = new Date().toISOString();
    const progress = (label: string) =>
      sink({ type: "tool_progress", runId: state.runId, at, callId: "c", toolName: "t", label });
    for (let i = 0; i < 10; i++) await progress(`tick ${i}`);
    assert.equal(commits.n - before, 1, "the first progress goes out at once, the rest wait");
    assert.deepEqual((await store.events(state.runId)).map((e) => e.event.type), ["tool_progress"]);
    await sleep(PROGRESS_LIVE_MS + 100); // the quiet spell ends: what waited goes out
    assert.equal(commits.n - before, 2);
    await progress("tick 10"); // after the spell: at once again
    await store.save({ ...state, turns: 1 }); // a save ends the spell, taking what waits
    const labels = (await store.events(state.runId)).map((e) =>
      e.event.type === "tool_progress" ? e.event.label : e.event.type
    );
    assert.deepEqual(labels, Array.from({ length: 11 }, (_, i) => `tick ${i}`));
  }));
