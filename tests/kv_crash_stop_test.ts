// What a SIGKILL at the end of a run or during a model call leaves behind
// (issue 17, items 2 and 3): a real child process over a KV file, killed at a
// kill point of tests/fixtures/kv_crash_child.ts, then resumed here.
import assert from "node:assert/strict";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import { computeCost, pricesFor } from "../harness/cost.ts";
import { crashAt, leaseLapsed, neverCrashed, resume, withEnv } from "./kv_crash_helpers.ts";

Deno.test("SIGKILL right after the final save: the trace ends with run_stopped, the lease is gone", () =>
  withEnv("plan", async (env) => {
    const { blocked } = await crashAt(env, "stop-committed");
    assert.equal(blocked.at, "stop-committed");
    const stored = await env.store.load(env.runId);
    assert.equal(stored.status, "completed");
    assert.equal(stored.output, PLAN_ANSWER);
    const events = await env.store.events(env.runId);
    const last = events.at(-1)?.event;
    assert.equal(last?.type, "run_stopped");
    assert.equal(last?.type === "run_stopped" && last.status, "completed");
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i));
    // The lease went in the same commit: nothing waits for the dead child's to lapse.
    assert.equal(await env.store.leaseHolder(env.runId), null);
  }));

Deno.test("SIGKILL while a model call is in flight: the resume counts it as spent, marked as an estimate", () =>
  withEnv("plan", async (env) => {
    // Killed inside the third call (two replies in its request): after the first
    // two were billed, the third's prompt may have reached the provider.
    const { child } = await crashAt(env, "model-call:2");
    assert.equal(child.modelCalls, 2);
    const stored = await env.store.load(env.runId);
    assert.equal(stored.turns, 2);
    assert.equal(stored.modelCall?.turn, 3, "the call was recorded before it was sent");

    const done = await resume(env);
    assert.equal(done.status, "completed");
    assert.equal(done.output, PLAN_ANSWER);
    const baseline = await neverCrashed("plan");
    // Priced from the provider's last reported prompt (turn 2's), a lower bound of turn 3's.
    const events = (await env.store.events(env.runId)).map((e) => e.event);
    const estimated = events.filter((e) => e.type === "spend_estimated");
    assert.equal(estimated.length, 1);
    const turns = events.filter((e) => e.type === "turn");
    const e = estimated[0];
    assert.ok(e.type === "spend_estimated");
    assert.equal(e.basis, "last_reported_prompt");
    assert.equal(e.turn, 3);
    assert.equal(e.prompt_tokens, turns[1].type === "turn" ? turns[1].prompt_tokens : -1);
    const usd = computeCost(
      { prompt_tokens: e.prompt_tokens, completion_tokens: 0 },
      pricesFor(undefined, env.model.name),
    );
    assert.equal(e.usd, usd);
    assert.ok(usd > 0);
    assert.equal(done.estimatedUsd, usd);
    assert.ok(Math.abs(done.costUsd - (baseline.costUsd + usd)) < 1e-12);
    assert.equal(done.turns, baseline.turns);
    assert.equal(done.modelCall, null);
    assert.equal((await env.store.summary(env.runId)).estimatedUsd, usd);
  }));

Deno.test("SIGKILL on resume after the estimate is counted, before it is saved: counted once, traced once", () =>
  withEnv("plan", async (env) => {
    await crashAt(env, "model-call:2");
    // The resume counts the unfinished call, then dies before its first save: the
    // estimate and its spend_estimated event must both be lost, or both kept.
    await leaseLapsed(env);
    const { blocked } = await crashAt(env, "saving:1");
    assert.equal(blocked.modelCalls, 0, "killed before it asked the model");
    const between = await env.store.load(env.runId);
    const traced = (await env.store.events(env.runId)).filter((e) =>
      e.event.type === "spend_estimated"
    );
    assert.equal(traced.length, between.estimatedUsd > 0 ? 1 : 0, "estimate vs its event");

    const done = await resume(env);
    assert.equal(done.status, "completed");
    const estimated = (await env.store.events(env.runId)).map((e) => e.event)
      .filter((e) => e.type === "spend_estimated");
    assert.equal(estimated.length, 1, "the unfinished call is counted once");
    const usd = estimated[0].type === "spend_estimated" ? estimated[0].usd : NaN;
    assert.equal(done.estimatedUsd, usd);
    const baseline = await neverCrashed("plan");
    assert.ok(Math.abs(done.costUsd - (baseline.costUsd + usd)) < 1e-12);
  }));
