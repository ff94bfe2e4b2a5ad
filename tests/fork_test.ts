// Forks (harness/fork.ts, harness/replay.ts, runtime/fork_run.ts): a new run from
// another's turn N, its next call quoted before it runs, repeated reads replayed.
import assert from "node:assert/strict";
import { forkState, quoteNextCall } from "../harness/fork.ts";
import { recordedReads } from "../harness/replay.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { computeCost } from "../harness/cost.ts";
import { run } from "../harness/run.ts";
import { RunConflictError, RunStateError } from "../harness/errors.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { executeRun, startRun } from "../runtime/execute_run.ts";
import { FORK_NOT_STARTED, forkRun, type ForkRunOptions } from "../runtime/fork_run.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import { fixture } from "./helpers.ts";
import { benchConversationBytes, benchForkQuotes } from "../bench/conversation_bench.ts";

const task = "Which file mentions a timeout?";

function turnsOf(events: TraceEvent[]) {
  return events.flatMap((e) => e.type === "turn" ? [e] : []);
}

Deno.test("fork at turn 1 of plan: quoted exactly, the repeated read replayed at $0, same answer", async () => {
  await using f = await fixture("plan");
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const source = await startRun(store, newRun(task, { system: "Be brief.", model: "plan" }), {
      model: f.model,
      tools: f.tools,
    });
    assert.equal(source.status, "completed");
    const { state, quote } = await forkRun(store, source.runId, {
      atTurn: 1,
      runWith: () => Promise.resolve({ model: f.model, tools: f.tools }),
    });
    assert.notEqual(state.runId, source.runId);
    assert.deepEqual(state.forkedFrom, { runId: source.runId, turn: 1 });
    assert.equal(state.messages.length, 4); // system, task, turn 1's call, its result
    assert.equal(quote.turn, 2);
    const calls = f.calls.n;
    const events: TraceEvent[] = [];
    const done = await executeRun(store, state.runId, {
      model: f.model,
      tools: f.tools,
      trace: (e) => void events.push(e),
    });
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    assert.equal(done.toolRuns, 0, "read_file errors.log was not run again");
    assert.equal(f.calls.n - calls, 2);
    const [first, second] = turnsOf(events);
    assert.equal(first.turn, 2);
    assert.equal(first.prompt_tokens, quote.promptTokens, "the quote is what the provider counts");
    const promptCost = computeCost({ prompt_tokens: first.prompt_tokens, completion_tokens: 0 });
    assert.equal(promptCost, quote.promptUsd);
    assert.ok(first.completion_tokens <= quote.replyTokens);
    assert.ok(Math.abs(done.costUsd - (first.turnCostUsd + second.turnCostUsd)) < 1e-12);
    const replayed = events.find((e) => e.type === "tool_result");
    assert.ok(replayed?.type === "tool_result");
    assert.deepEqual(replayed.replayed, { runId: source.runId, callId: "call_1_0" });
    assert.equal(replayed.ms, 0);
    assert.ok(!events.some((e) => e.type === "tool_start"), "nothing ran");
    // Stored with its trace; the source is untouched.
    const stored = await store.events(state.runId);
    assert.ok(stored.some(({ event }) => event.type === "tool_result" && event.replayed));
    assert.equal((await store.load(source.runId)).messages.length, source.messages.length);
  } finally {
    kv.close();
  }
});

Deno.test("forkRun with start: false waits (interrupted) and is quoted; hard mode refuses a short budget", async () => {
  await using f = await fixture("plan");
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const source = await startRun(store, newRun(task), { model: f.model, tools: f.tools });
    const runWith = () => Promise.resolve({ model: f.model, tools: f.tools });
    const { state, quote } = await forkRun(store, source.runId, {
      atTurn: 0,
      start: false,
      runWith,
    });
    assert.equal(state.status, "interrupted");
    assert.equal(state.stopReason, FORK_NOT_STARTED);
    assert.equal((await store.summary(state.runId)).status, "interrupted");
    assert.ok(quote.totalUsd > quote.promptUsd && quote.replyTokens === 16_384);
    const before = (await store.list()).length;
    const hard = () =>
      Promise.resolve({ model: f.model, tools: f.tools, budgetMode: "hard" as const });
    // The prompt and 10 reply tokens: fewer than the 32 a useful reply needs, as the loop refuses.
    const perToken = quote.replyUsd / quote.replyTokens;
    await assert.rejects(
      forkRun(store, source.runId, {
        atTurn: 0,
        limits: { maxBudgetUsd: quote.promptUsd + 10 * perToken },
        runWith: hard,
      }),
      (e) =>
        e instanceof RangeError &&
        /^limits.maxBudgetUsd: the fork's next call cannot be made under its hard budget .* fewer than the 32/
          .test(e.message),
    );
    assert.equal((await store.list()).length, before, "nothing saved");
    // The run's own minReplyTokens is the fork's check too (before: runWith's type dropped it).
    await assert.rejects(
      forkRun(store, source.runId, {
        atTurn: 0,
        limits: { maxBudgetUsd: quote.promptUsd + 100 * perToken },
        runWith: () =>
          Promise.resolve(
            {
              model: f.model,
              tools: f.tools,
              budgetMode: "hard" as const,
              minReplyTokens: 200,
            } satisfies Awaited<ReturnType<ForkRunOptions["runWith"]>>,
          ),
      }),
      /fewer than the 200 a useful reply needs/,
    );
    // Less than the whole reply reservation is enough: a hard call's reply is capped at what
    // the rest buys (before: refused, so a budget under ~$0.2 could never be forked).
    const enough = await forkRun(store, source.runId, {
      atTurn: 0,
      limits: { maxBudgetUsd: quote.totalUsd / 2 },
      runWith: hard,
    });
    assert.equal(enough.state.status, "running");
  } finally {
    kv.close();
  }
});

Deno.test("forkState refuses a turn out of range, the final answer, an unanswered call, a child", async () => {
  await using f = await fixture("plan");
  const done = await run(newRun(task), { model: f.model, tools: f.tools });
  assert.throws(() => forkState(done, { atTurn: 4 }), /atTurn must be an integer from 0 to 3/);
  assert.throws(() => forkState(done, { atTurn: 1.5 }), RangeError);
  assert.throws(() => forkState(done, { atTurn: 3 }), /it is the run's final answer/);
  const cut: RunState = { ...done, messages: done.messages.slice(0, 2) };
  assert.throws(() => forkState(cut, { atTurn: 1 }), /call "call_0_0" of that turn has no result/);
  const child = { ...done, parentId: "p" };
  assert.throws(() => forkState(child, { atTurn: 0 }), RunStateError);
  const zero = forkState(done, { atTurn: 0 });
  assert.equal(zero.messages.length, 1);
  assert.equal(zero.turns, 0);
  assert.equal(zero.costUsd, 0);
});

Deno.test("replay: only reads before the source's first write, never after the fork wrote", async () => {
  await using f = await fixture("destructive");
  const tools = new Map(f.tools.map((t) => [t.name, t]));
  const s = newRun(task);
  const call = (id: string, name: string, args: string) => ({
    role: "assistant" as const,
    content: null,
    tool_calls: [{ id, type: "function" as const, function: { name, arguments: args } }],
  });
  const result = (id: string, name: string, content: string) => ({
    role: "tool" as const,
    tool_call_id: id,
    name,
    content,
  });
  s.messages.push(
    call("a", "list_files", "{}"),
    result("a", "list_files", "one"),
    call("b", "read_file", '{"path":"x"}'),
    result("b", "read_file", "Error: no such file"),
    call("c", "delete_file", '{"path":"access.log"}'),
    result("c", "delete_file", "deleted"),
    call("d", "read_file", '{"path":"y"}'),
    result("d", "read_file", "after the write"),
  );
  const reads = recordedReads(s, 0, tools);
  assert.deepEqual(
    [...reads.values()].map((r) => r.callId),
    ["a"],
    "errors and post-write reads are not served",
  );
  assert.equal(recordedReads(s, 1, tools).size, 0);
  // A fork that writes first runs its later reads for real.
  const store = new MemoryRunStore();
  await store.save(s);
  const fork = forkState(s, { atTurn: 0 });
  const done = await run(fork, { model: f.model, tools: f.tools, store });
  assert.equal(done.status, "interrupted"); // destructive's delete awaits approval
  assert.equal(done.toolRuns, 0, "list_files replayed");
  const quote = await quoteNextCall(fork, { model: f.model, tools: f.tools });
  assert.ok(quote.promptTokens > 0);
});

Deno.test("bench figures: every fork quote of plan is the provider's count; bytes per message stay flat", async () => {
  await using f = await fixture("plan");
  const rows = await benchForkQuotes(f.tools);
  assert.deepEqual(rows.map((r) => r.atTurn), [0, 1, 2]);
  for (const r of rows) assert.equal(r.quoted, r.actual, `fork at turn ${r.atTurn}`);
  assert.deepEqual(rows.map((r) => r.replayed), [2, 1, 0]);
  const perMessage = await benchConversationBytes(30);
  assert.equal(perMessage.length, 30);
  const [second, last] = [perMessage[1].bytes, perMessage[29].bytes];
  assert.ok(last / second < 1.1, `message 30: ${last} B, message 2: ${second} B`);
});

Deno.test("a fork keeps its source's agent and stored settings", async () => {
  await using f = await fixture("plan");
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const source = newRun(task, { model: "plan", agent: "demo" });
    const stamp = { $schemaVersion: 1, agent: "demo", fingerprint: "f1", tools: {}, options: {} };
    await store.saveSettings(source.runId, stamp);
    const done = await startRun(store, source, { model: f.model, tools: f.tools });
    const { state } = await forkRun(store, done.runId, {
      atTurn: 1,
      start: false,
      limits: { maxTurns: 7 },
      runWith: () => Promise.resolve({ model: f.model, tools: f.tools }),
    });
    assert.equal(state.agent, "demo");
    assert.equal(state.limits.maxTurns, 7);
    assert.deepEqual(await store.settings(state.runId), stamp);
    assert.equal((await store.load(state.runId)).agent, "demo");
  } finally {
    kv.close();
  }
});

Deno.test("forkRun onto a taken id: a RunConflictError, that run and its settings left as they were", async () => {
  await using f = await fixture("plan");
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const source = await startRun(store, newRun(task, { model: "plan" }), {
      model: f.model,
      tools: f.tools,
    });
    const runWith = () => Promise.resolve({ model: f.model, tools: f.tools });
    const made = await forkRun(store, source.runId, { atTurn: 1, runId: "fork-1", runWith });
    await store.saveSettings("fork-1", { mine: true });
    // Again on the same id, by another process's store (a retry): refused, nothing written.
    const retry = new KvRunStore(kv);
    await assert.rejects(
      () => forkRun(retry, source.runId, { atTurn: 0, runId: "fork-1", runWith }),
      RunConflictError,
    );
    // Again, its quote failing: before, this deleted the fork it had met.
    const failing = () => Promise.reject(new Error("no agent here"));
    await assert.rejects(
      () => forkRun(retry, source.runId, { atTurn: 1, runId: "fork-1", runWith: failing }),
      /no agent here/,
    );
    const kept = await new KvRunStore(kv).load("fork-1");
    assert.deepEqual(kept.forkedFrom, made.state.forkedFrom);
    assert.deepEqual(await store.settings("fork-1"), { mine: true });
  } finally {
    kv.close();
  }
});

Deno.test("a hard-budget fork prices its prompt as the loop will: with the provider's ratio", async () => {
  await using f = await fixture("plan");
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const done = await startRun(store, newRun(task), { model: f.model, tools: f.tools });
    const hard = () =>
      Promise.resolve({ model: f.model, tools: f.tools, budgetMode: "hard" as const });
    const quoted = async () =>
      (await forkRun(store, done.runId, { atTurn: 0, quoteOnly: true, runWith: hard })).quote;
    const plain = await quoted();
    // The provider counted 3x reins's prompt: the loop plans with 3 x 1.05 of the count, and
    // so does the quote now (before: the quote and the fork's check priced the count alone,
    // and the fork stopped at its first call).
    const source = await store.load(done.runId);
    source.promptRatio = 3;
    await store.save(source);
    const quote = await quoted();
    assert.equal(quote.promptTokens, plain.promptTokens);
    assert.ok(Math.abs(quote.promptUsd / plain.promptUsd - 3.15) < 0.01, `${quote.promptUsd}`);
    const perToken = quote.replyUsd / quote.replyTokens;
    await assert.rejects(
      forkRun(store, done.runId, {
        atTurn: 0,
        limits: { maxBudgetUsd: quote.promptUsd + 10 * perToken },
        runWith: hard,
      }),
      (e) => e instanceof RangeError && /cannot be made under its hard budget/.test(e.message),
    );
    const enough = await forkRun(store, done.runId, {
      atTurn: 0,
      limits: { maxBudgetUsd: quote.promptUsd + 40 * perToken },
      runWith: hard,
    });
    assert.equal(enough.state.status, "running");
  } finally {
    kv.close();
  }
});
