// Crash and resume over a real Deno KV file shared by processes: a child
// process (tests/fixtures/kv_crash_child.ts) executes a run and is killed
// with SIGKILL at one interesting point, then the run is resumed in this
// process once the dead child's lease lapses. Model calls are counted at the
// provider in both processes, effects in the workspace.
import assert from "node:assert/strict";
import { join } from "node:path";
import { newRun, pending } from "../harness/state.ts";
import { approve, reject } from "../harness/verdict.ts";
import { DELETED_ANSWER, PLAN_ANSWER } from "../testing/scenarios.ts";
import { type Effect, readEffects } from "../tools/delete_file.ts";
import { startRun } from "../runtime/execute_run.ts";
import { sleep } from "../harness/sleep.ts";
import { INVOCATIONS_LOG, LEDGER_ANSWER, SYSTEM, TASK } from "./fixtures/kv_crash_child.ts";

import {
  approvedDeletion,
  assertBillWithEstimate,
  assertOneResultPerCall,
  assertSameBill,
  Child,
  crashAt,
  type Line,
  neverCrashed,
  parentToolStarts,
  resume,
  toolStarts,
  withEnv,
} from "./kv_crash_helpers.ts";
Deno.test("SIGKILL after the model's reply is committed: the resume runs its tool without asking again", () =>
  withEnv("plan", async (env) => {
    const { child, blocked } = await crashAt(env, "reply-committed:1");
    assert.deepEqual(blocked.pending, ["call_0_0"]);
    assert.equal(child.modelCalls, 1);
    assert.equal(child.at("tool-started").length, 0, "killed before the tool started");

    const restored = await env.store.load(env.runId);
    assert.equal(restored.turns, 1);
    assert.deepEqual(pending(restored).map((c) => c.id), ["call_0_0"]);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    // Turn 0 is never asked again: this process's first request already holds its reply.
    assert.deepEqual(env.parentTurns, [1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.equal(done.turns, 3);
    assert.deepEqual(parentToolStarts(env), ["list_files:call_0_0", "read_file:call_1_0"]);
    assert.deepEqual(await toolStarts(env), { call_0_0: 1, call_1_0: 1 });
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("plan"));
  }));

Deno.test("SIGKILL after a tool result is committed: the resume asks the model next, no tool runs twice", () =>
  withEnv("plan", async (env) => {
    const { child, blocked } = await crashAt(env, "result-committed:1");
    assert.deepEqual(blocked.pending, []);
    assert.equal(child.modelCalls, 1);
    assert.deepEqual(child.at("tool-done").map((l) => l.callId), ["call_0_0"]);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.deepEqual(env.parentTurns, [1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.deepEqual(parentToolStarts(env), ["read_file:call_1_0"]);
    assert.deepEqual(await toolStarts(env), { call_0_0: 1, call_1_0: 1 });
    assertOneResultPerCall(done);
    assertBillWithEstimate(done, await neverCrashed("plan"));
  }));

Deno.test("SIGKILL after an approved deletion's result is committed: the resume neither asks nor deletes again", () =>
  withEnv("destructive", async (env) => {
    const callId = await approvedDeletion(env);
    const { child } = await crashAt(env, "result-committed:2");
    assert.equal(child.modelCalls, 0);
    assert.equal(child.at("tool-done").length, 1);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, DELETED_ANSWER);
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.deepEqual(parentToolStarts(env), []);
    assert.deepEqual(
      await readEffects(env.ws),
      [
        { key: `${env.runId}:${callId}`, path: "access.log" },
      ] satisfies Effect[],
    );
    assertOneResultPerCall(done);
    assertBillWithEstimate(done, await neverCrashed("destructive"));
  }));

Deno.test("SIGKILL inside a write before it acted: the resume asks (uncertain_effect); approving runs it once", () =>
  withEnv("destructive", async (env) => {
    const callId = await approvedDeletion(env);
    const { child } = await crashAt(env, "tool-started:delete_file");
    assert.equal(child.modelCalls, 0);
    assert.deepEqual(child.at("intent-committed").map((l) => l.inFlight), [[callId]]);
    assert.deepEqual(await readEffects(env.ws), []);
    assert.ok((await env.ws.files()).includes("access.log"));

    const asked = await resume(env);
    assert.equal(asked.status, "interrupted");
    assert.deepEqual(asked.interruption, {
      type: "approval",
      why: "uncertain_effect",
      callId,
      toolName: "delete_file",
      args: { path: "access.log" },
    });
    assert.match(asked.stopReason ?? "", /uncertain/);
    assert.deepEqual(env.parentTurns, [0, 1], "no model call to ask for a verdict");
    assert.deepEqual(parentToolStarts(env), [], "not retried without a verdict");

    const done = await resume(env, approve(asked, callId));
    assert.equal(done.status, "completed");
    assert.equal(done.output, DELETED_ANSWER);
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.deepEqual(await readEffects(env.ws), [
      { key: `${env.runId}:${callId}`, path: "access.log" },
    ]);
    assert.ok(!(await env.ws.files()).includes("access.log"));
    assert.deepEqual(done.inFlight, []);
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("destructive"));
  }));

Deno.test("SIGKILL inside a write after it acted: rejecting the retry says it may have happened", () =>
  withEnv("destructive", async (env) => {
    const callId = await approvedDeletion(env);
    const { child } = await crashAt(env, "tool-done:delete_file");
    assert.equal(child.modelCalls, 0);
    assert.deepEqual(await readEffects(env.ws), [
      { key: `${env.runId}:${callId}`, path: "access.log" },
    ]);

    const asked = await resume(env);
    assert.equal(asked.status, "interrupted");
    assert.equal(asked.interruption?.type, "approval");
    assert.equal(asked.interruption.why, "uncertain_effect");
    assert.equal(asked.interruption.callId, callId);

    const rejected = reject(asked, callId);
    const words = rejected.messages.at(-1);
    assert.equal(words?.role, "tool");
    assert.match(words.content, /may or may not have taken effect/);
    assert.match(words.content, /Do not report it as done/);
    const done = await resume(env, rejected);
    assert.equal(done.status, "completed");
    // The model was told the effect is uncertain: it must not claim the deletion.
    assert.notEqual(done.output, DELETED_ANSWER);
    assert.doesNotMatch(String(done.output ?? ""), /^Deleted/);
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.equal(child.modelCalls + env.parentTurns.length, 3);
    assert.equal((await readEffects(env.ws)).length, 1, "not deleted again");
    assertOneResultPerCall(done);
  }));

Deno.test("SIGKILL inside an idempotent write after it acted: the resume reruns it with the same key, applied once", () =>
  withEnv("ledger", async (env) => {
    const { child, blocked } = await crashAt(env, "tool-done:record_once");
    const key = `${env.runId}:call_0_0`;
    assert.equal(blocked.key, key);
    assert.equal(child.modelCalls, 1);
    assert.deepEqual(await readEffects(env.ws), [{ key, path: "payment-42" }]);

    const done = await resume(env);
    assert.equal(done.status, "completed", `stopped: ${done.stopReason}`);
    assert.equal(done.output, `${LEDGER_ANSWER}recorded payment-42`);
    assert.deepEqual(env.parentTurns, [1]);
    assert.equal(child.modelCalls + env.parentTurns.length, 2);
    assert.deepEqual(parentToolStarts(env), ["record_once:call_0_0"]);
    // The killed child's tool_start was held for the result's save it never made
    // (its intent is in the state: inFlight); the resume's is stored.
    assert.deepEqual(await toolStarts(env), { call_0_0: 1 });
    const invocations = (await Deno.readTextFile(join(env.ws.dir, INVOCATIONS_LOG)))
      .split("\n").filter(Boolean);
    assert.deepEqual(invocations, [key, key], "ran twice, with the same idempotency key");
    assert.deepEqual(await readEffects(env.ws), [{ key, path: "payment-42" }], "applied once");
    assert.deepEqual(done.inFlight, []);
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("ledger"));
  }));

Deno.test("SIGKILL mid-stream: the resume asks again, bills the reply once and the lost call as an estimate", () =>
  withEnv("ledger", async (env) => {
    const { child, blocked } = await crashAt(env, "streaming:1");
    assert.equal(child.modelCalls, 2);
    assert.ok(LEDGER_ANSWER.startsWith((blocked.deltas as string[]).join("")));
    // The streamed words were for watching: the record holds no part of the reply.
    const restored = await env.store.load(env.runId);
    assert.equal(restored.turns, 1);
    assert.equal(restored.messages.at(-1)?.role, "tool");
    const billed = restored.costUsd;

    const done = await resume(env);
    assert.equal(done.status, "completed", `stopped: ${done.stopReason}`);
    assert.equal(done.output, `${LEDGER_ANSWER}recorded payment-42`);
    assert.deepEqual(env.parentTurns, [1]);
    assert.ok(done.costUsd > billed);
    assertOneResultPerCall(done);
    // The killed call was on the wire: its prompt is counted, marked as estimated.
    assertBillWithEstimate(done, await neverCrashed("ledger"));
    // The resumed reply streamed again, whole.
    const resumedDeltas = env.events.flatMap((e) => e.type === "text_delta" ? [e.delta] : []);
    assert.equal(resumedDeltas.join(""), done.output);
  }));

Deno.test("two processes resume the same stopped run at once: exactly one proceeds", () =>
  withEnv("plan", async (env) => {
    // A stopped run: cancelled in this process as its first tool started.
    const stop = new AbortController();
    const stopped = await startRun(env.store, newRun(TASK, { system: SYSTEM, runId: env.runId }), {
      model: env.model,
      tools: env.tools,
      signal: stop.signal,
      trace: (e) => {
        if (e.type === "tool_start") stop.abort("operator stop");
      },
    });
    assert.equal(stopped.status, "interrupted");
    assert.equal(stopped.interruption?.type, "cancelled");
    assert.deepEqual(pending(stopped).map((c) => c.id), ["call_0_0"]);

    const children = [0, 1].map(() =>
      new Child(env.kvPath, env.ws, "plan", "tool-started:list_files", env.runId)
    );
    let outcomes: Line[];
    try {
      // The winner blocks holding its lease until both have spoken.
      outcomes = await Promise.all(
        children.map((c) => c.next((l) => l.blocking === true || l.at === "conflict")),
      );
    } catch (e) {
      children.forEach((c) => c.kill());
      throw e;
    }
    // A tool running longer than TOOL_START_LIVE_MS shows as started: the winner's
    // start goes out while it blocks (a held event, flushed by the live timer).
    for (let i = 0; (await toolStarts(env)).call_0_0 !== 2; i++) {
      if (i === 500) assert.fail("the winner's tool_start never showed");
      await sleep(20);
    }
    // Only the winner blocks; the loser exits on its own (killing it too would race its
    // exit, now that a resume reaches its first tool without building a tokenizer first).
    children.forEach((c, i) => outcomes[i].blocking === true && c.kill());
    const results = await Promise.all(children.map((c) => c.done));
    const winner = outcomes.findIndex((l) => l.blocking === true);
    const loser = outcomes.findIndex((l) => l.at === "conflict");
    assert.ok(winner >= 0 && loser >= 0 && winner !== loser, JSON.stringify(outcomes));
    assert.match(String(outcomes[loser].message), /being executed by pid/);
    assert.equal(results[loser].status.code, 3, results[loser].stderr);
    assert.equal(results[winner].status.signal, "SIGKILL");
    assert.equal(children[loser].modelCalls, 0);
    assert.equal(children[loser].at("tool-started").length, 0);
    assert.equal(children[winner].modelCalls, 0);

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.deepEqual(env.parentTurns, [0, 1, 2]);
    assert.equal(done.turns, 3);
    // list_files is read-only: started here (cancelled), by the winner (killed), and on resume.
    assert.deepEqual(await toolStarts(env), { call_0_0: 3, call_1_0: 1 });
    assertOneResultPerCall(done);
    assertSameBill(done, await neverCrashed("plan"));
  }));
