// A compaction's summary call killed by SIGKILL (issue 26): the child process
// (tests/fixtures/kv_crash_child.ts) runs `runaway` with a context policy and
// hangs in its first summary call; this process resumes the run once the dead
// child's lease lapses. The lost call is counted once, as an estimate; the
// resume summarizes again and one summary is recorded, billed once.
import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { roundUsd } from "../harness/cost.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { executeRun } from "../runtime/execute_run.ts";
import { crashModel, crashTools, SYSTEM, TASK } from "./fixtures/kv_crash_child.ts";
import { crashAt, leaseLapsed, withEnv } from "./kv_crash_helpers.ts";

const context = { trigger: { tokens: 700 }, keepTurns: 2 };

async function neverCrashed() {
  const ws = await createWorkspace();
  try {
    const events: TraceEvent[] = [];
    const state = await run(newRun(TASK, { system: SYSTEM }), {
      model: crashModel("runaway", () => {}),
      tools: crashTools(ws),
      context,
      trace: (e) => void events.push(e),
    });
    return { state, events };
  } finally {
    await ws.remove();
  }
}

Deno.test("SIGKILL during a summary call: the resume counts the lost call once and records one summary", () =>
  withEnv("runaway", async (env) => {
    const { child } = await crashAt(env, "summary-call:1", {
      REINS_CRASH_CONTEXT: JSON.stringify(context),
    });
    assert.equal(child.at("summary-call").length, 1);
    // The summary call was recorded before it was sent; nothing of it was committed.
    const restored = await env.store.load(env.runId);
    assert.equal(restored.modelCall?.kind, "compaction");
    assert.equal(restored.context, undefined);
    const lostPrompt = restored.modelCall!.promptTokens!;
    assert.ok(lostPrompt > 0);

    await leaseLapsed(env);
    const done = await executeRun(env.store, env.runId, {
      model: env.model,
      tools: env.tools,
      context,
      trace: (e) => void env.events.push(e),
    });
    assert.equal(done.status, "max_turns_exceeded");
    const stored = (await env.store.events(env.runId)).map((e) => e.event);
    const summaries = stored.filter((e) => e.type === "compaction");
    assert.equal(summaries.length, 1, "one summary recorded");
    assert.equal(summaries[0].type === "compaction" && summaries[0].strategy, "summarize");
    const estimates = stored.filter((e) => e.type === "spend_estimated");
    assert.equal(estimates.length, 1);
    const estimate = estimates[0];
    assert.ok(estimate.type === "spend_estimated");
    assert.equal(estimate.kind, "compaction");
    assert.equal(estimate.prompt_tokens, lostPrompt);
    assert.equal(done.modelCall, null);

    // The same run, never crashed: same turns, tokens, summary and summary cost;
    // the resumed run's cost is that plus the lost call's estimate, nothing more.
    const base = await neverCrashed();
    assert.equal(done.turns, base.state.turns);
    assert.deepEqual(done.usage, base.state.usage);
    assert.deepEqual(done.context, base.state.context);
    assert.equal(done.estimatedUsd, estimate.usd);
    assert.equal(done.costUsd, roundUsd(base.state.costUsd + estimate.usd));
  }));
