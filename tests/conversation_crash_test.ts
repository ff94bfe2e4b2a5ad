// Follow-ups and forks survive a SIGKILL like any run: a child process executes
// them over a KV file (tests/fixtures/kv_crash_child.ts) and is killed at one point;
// this process resumes once the lease lapses. No turn is billed twice, no replayed
// read runs, the follow-up's message is in the trace once.
import assert from "node:assert/strict";
import { newRun, type RunState } from "../harness/state.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import { executeRun, startRun } from "../runtime/execute_run.ts";
import { followUpRun } from "../runtime/follow_up_run.ts";
import { forkRun } from "../runtime/fork_run.ts";
import { SYSTEM, TASK } from "./fixtures/kv_crash_child.ts";
import {
  assertBillWithEstimate,
  assertOneResultPerCall,
  assertSameBill,
  crashAt,
  type Env,
  resume,
  toolStarts,
  withEnv,
} from "./kv_crash_helpers.ts";

async function eventTypes(env: Env, id = env.runId): Promise<string[]> {
  return (await env.store.events(id)).map(({ event }) => event.type);
}

/** A plan run completed here, and a follow-up to it stored `running` (not executed). */
async function followedUp(env: Env): Promise<RunState> {
  const done = await startRun(env.store, newRun(TASK, { system: SYSTEM, runId: env.runId }), {
    model: env.model,
    tools: env.tools,
  });
  assert.equal(done.status, "completed");
  return await followUpRun(env.store, env.kv, env.runId, "Which worker?");
}

Deno.test("SIGKILL right after a follow-up's exit save: its answer is in it, billed once", () =>
  withEnv("plan", async (env) => {
    const asked = await followedUp(env);
    const before = [...env.parentTurns];
    // The answer (no tool calls) rides in the exit's save: one commit for both.
    const { child } = await crashAt(env, "stop-committed");
    assert.equal(child.modelCalls, 1);
    const stored = await env.store.load(env.runId);
    assert.equal(stored.status, "completed");
    assert.equal(stored.output, PLAN_ANSWER);
    assert.equal(stored.turns, 4);
    assert.equal(stored.estimatedUsd, 0);
    assert.equal(stored.modelCall, null);
    assert.equal(stored.messages.length, asked.messages.length + 1);
    assert.deepEqual(env.parentTurns, before, "nothing asked here");
    // The same follow-up, never crashed, costs exactly as much.
    assertSameBill(stored, await withBaseline(env, asked));
    const types = await eventTypes(env);
    assert.equal(types.filter((t) => t === "user_message").length, 1);
    assert.equal(types.filter((t) => t === "turn").length, 4);
    assert.equal(types.at(-1), "run_stopped");
  }));

Deno.test("SIGKILL after a follow-up's answer arrived, before the exit save: asked again, billed once plus the estimate", () =>
  withEnv("plan", async (env) => {
    const asked = await followedUp(env);
    // Save 1 records the call; save 2, the exit's, would carry the answer.
    const { child, blocked } = await crashAt(env, "saving:2");
    assert.equal(child.modelCalls, 1, "the answer was received (and billed) before the kill");
    const stored = await env.store.load(env.runId);
    assert.equal(stored.status, "running");
    assert.equal(stored.turns, 3, "the answer was not committed");
    assert.equal(stored.modelCall?.turn, 4, "but its call was recorded");
    assert.ok(blocked.costUsd as number > stored.costUsd, "the child had billed it");
    const calls = env.parentTurns.length;
    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    assert.equal(env.parentTurns.length, calls + 1, "asked once more");
    // Billed once, plus the lost call counted as an estimate (never a whole turn twice).
    assertBillWithEstimate(done, await withBaseline(env, asked));
    const types = await eventTypes(env);
    assert.equal(types.filter((t) => t === "user_message").length, 1, "announced once");
    assert.equal(types.filter((t) => t === "spend_estimated").length, 1);
    assert.equal(types.filter((t) => t === "turn").length, 4, "the lost turn left no trace");
  }));

Deno.test("SIGKILL while a follow-up's call is on the wire: one estimate, the turn made once", () =>
  withEnv("plan", async (env) => {
    await followedUp(env);
    const { child } = await crashAt(env, "model-call:3");
    assert.equal(child.modelCalls, 0, "killed before the provider saw it");
    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.turns, 4);
    assert.ok(done.estimatedUsd > 0, "the unanswered call is counted, as an estimate");
    const types = await eventTypes(env);
    assert.equal(types.filter((t) => t === "user_message").length, 1, "announced once");
    assert.equal(types.filter((t) => t === "spend_estimated").length, 1);
  }));

Deno.test("SIGKILL mid-fork after its reply is committed: the resume replays the read, bills once", () =>
  withEnv("plan", async (env) => {
    const source = await startRun(env.store, newRun(TASK, { system: SYSTEM }), {
      model: env.model,
      tools: env.tools,
    });
    const runWith = () => Promise.resolve({ model: env.model, tools: env.tools });
    await forkRun(env.store, source.runId, { atTurn: 1, runId: env.runId, runWith });
    const { child } = await crashAt(env, "reply-committed:2");
    assert.equal(child.modelCalls, 1);
    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    assert.equal(done.turns, 3);
    assert.equal(done.estimatedUsd, 0);
    assertOneResultPerCall(done);
    assert.deepEqual(await toolStarts(env), {}, "the read was replayed, never run");
    const replayed = (await env.store.events(env.runId)).filter(({ event }) =>
      event.type === "tool_result" && event.replayed
    );
    assert.equal(replayed.length, 1);
    // A fork of the same source executed in one go costs the same.
    const other = await forkRun(env.store, source.runId, { atTurn: 1, runWith });
    const baseline = await executeRun(env.store, other.state.runId, {
      model: env.model,
      tools: env.tools,
    });
    assertSameBill(done, baseline);
  }));

/** The follow-up `asked` executed in one go under another id, for its bill. */
async function withBaseline(env: Env, asked: RunState): Promise<RunState> {
  const copy = { ...structuredClone(asked), runId: `${asked.runId}-baseline` };
  copy.rootId = copy.runId;
  await env.store.save(copy);
  return await executeRun(env.store, copy.runId, { model: env.model, tools: env.tools });
}
