import assert from "node:assert/strict";
import { z } from "zod";
import { run } from "../harness/run.ts";
import { newRun, pending } from "../harness/state.ts";
import { approve, reject } from "../harness/verdict.ts";
import { hasToolCall, isBudgetSpent, isStepCount } from "../harness/stop_conditions.ts";
import { computeCost } from "../harness/cost.ts";
import { memorySink } from "../harness/trace.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import { defineTool } from "../harness/tool.ts";
import { RunStateError } from "../harness/errors.ts";
import { messageOf } from "../harness/message_of.ts";
import { exists, fixture } from "./helpers.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";

const task = "Which file mentions a timeout?";

Deno.test("run() completes plan in 3 turns and 2 tool runs, cost is arithmetic over usage", async () => {
  await using f = await fixture("plan");
  const { sink, events } = memorySink();
  const s = await run(newRun(task), { model: f.model, tools: f.tools, trace: sink });
  assert.equal(s.status, "completed");
  assert.equal(s.output, PLAN_ANSWER);
  assert.equal(s.turns, 3);
  assert.equal(s.toolRuns, 2);
  assert.equal(f.calls.n, 3);
  assert.ok(Math.abs(s.costUsd - computeCost(s.usage)) < 1e-12);
  const turns = events.filter((e) => e.type === "turn");
  assert.equal(turns.length, 3);
  // Each turn re-sends everything before it: prompt tokens grow.
  const prompts = turns.map((e) => e.type === "turn" ? e.prompt_tokens : 0);
  assert.ok(prompts[0] < prompts[1] && prompts[1] < prompts[2], String(prompts));
  assert.ok(events.every((e) => e.runId === s.runId));
  assert.equal(events.at(-1)?.type, "run_stopped");
});

Deno.test("run() stops at the turn cap with the partial transcript", async () => {
  await using f = await fixture("runaway");
  const s = await run(newRun(task), { model: f.model, tools: f.tools, limits: { maxTurns: 8 } });
  assert.equal(s.status, "max_turns_exceeded");
  assert.deepEqual(s.interruption, { type: "max_turns" });
  assert.equal(s.turns, 8);
  assert.equal(f.calls.n, 8);
  assert.equal(s.messages.filter((m) => m.role === "tool").length, 8);
  assert.ok(s.costUsd > 0 && s.usage.prompt_tokens > 0);
  assert.match(s.stopReason ?? "", /turn cap/);
});

Deno.test("run() a turn-capped run continues when given a higher cap", async () => {
  await using f = await fixture("runaway");
  const first = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxTurns: 2 },
  });
  const more = await run(first, { model: f.model, tools: f.tools, limits: { maxTurns: 4 } });
  assert.equal(more.status, "max_turns_exceeded");
  assert.equal(more.turns, 4);
  assert.equal(f.calls.n, 4);
});

Deno.test("run() soft budget stops budget_exceeded, overshooting by at most one turn", async () => {
  await using f = await fixture("runaway");
  const budget = 0.01;
  const { sink, events } = memorySink();
  const s = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxTurns: 1000, maxBudgetUsd: budget },
    trace: sink,
  });
  assert.equal(s.status, "budget_exceeded");
  assert.deepEqual(s.interruption, { type: "max_budget" });
  assert.ok(s.costUsd >= budget);
  const last = events.filter((e) => e.type === "turn").at(-1);
  assert.ok(last?.type === "turn" && s.costUsd - last.turnCostUsd < budget);
});

Deno.test("run() hard budget never spends more than the budget", async () => {
  for (const budget of [0.002, 0.01, 0.0301]) {
    await using f = await fixture("runaway");
    const s = await run(newRun(task), {
      model: f.model,
      tools: f.tools,
      limits: { maxTurns: 1000, maxBudgetUsd: budget },
      budgetMode: "hard",
    });
    assert.equal(s.status, "budget_exceeded");
    assert.ok(s.costUsd <= budget + 1e-12, `${s.costUsd} > ${budget}`);
    // It stops when the rest cannot pay the next prompt and a useful reply (32 tokens): no sooner.
    const useful = (32 * 12) / 1e6;
    const lastPrompt = (s.usage.prompt_tokens / s.turns) * 2 * 1.5 / 1e6;
    assert.ok(
      budget - s.costUsd < lastPrompt + useful,
      `${s.costUsd} spends too little of ${budget}`,
    );
    assert.match(s.stopReason ?? "", /fewer than the 32 a useful reply needs|prompt alone costs/);
  }
});

Deno.test("run() hard budget does not call the model when the prompt alone is unaffordable", async () => {
  await using f = await fixture("plan");
  const s = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxBudgetUsd: 0.0001 },
    budgetMode: "hard",
  });
  assert.equal(s.status, "budget_exceeded");
  assert.equal(f.calls.n, 0);
  assert.match(s.stopReason ?? "", /prompt alone/);
});

Deno.test("stopWhen: hasToolCall stops completed; custom predicate; isStepCount", async () => {
  await using f = await fixture("plan");
  const a = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    stopWhen: [hasToolCall("read_file")],
  });
  assert.equal(a.status, "completed");
  assert.equal(a.turns, 2);
  const b = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    stopWhen: [(s) => s.toolRuns >= 1],
  });
  assert.equal(b.turns, 1);
  const c = await run(newRun(task), { model: f.model, tools: f.tools, stopWhen: [isStepCount(2)] });
  assert.equal(c.status, "max_turns_exceeded");
  assert.equal(c.turns, 2);
  const d = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    stopWhen: [isBudgetSpent(0)],
  });
  assert.equal(d.status, "budget_exceeded");
  assert.equal(d.turns, 0);
});

Deno.test("tool errors: describe lets recover succeed, generic makes it give up, fatal fails", async () => {
  await using f = await fixture("recover");
  const d = await run(newRun(task), { model: f.model, tools: f.tools });
  assert.equal(d.status, "completed");
  assert.equal(d.output, "errors.log mentions a timeout.");
  assert.equal(d.turns, 4);
  const g = await run(newRun(task), { model: f.model, tools: f.tools, toolErrors: "generic" });
  assert.equal(g.output, "I could not read the file, so I do not know.");
  assert.equal(g.messages.find((m) => m.role === "tool")?.content, "Error");
  const x = await run(newRun(task), { model: f.model, tools: f.tools, toolErrors: "fatal" });
  assert.equal(x.status, "failed");
  assert.match(x.stopReason ?? "", /read_file failed/);
  assert.equal(x.turns, 1);
  const custom = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    toolErrors: (e) => `Oops: ${(e as Error).message}`,
  });
  assert.match(
    custom.messages.find((m) => m.role === "tool")?.content ?? "",
    /^Oops: no such file/,
  );
});

Deno.test("forbidden: a permanent error stops failed; without the stop it runs to the cap", async () => {
  await using f = await fixture("forbidden");
  const s = await run(newRun(task), { model: f.model, tools: f.tools, limits: { maxTurns: 12 } });
  assert.equal(s.status, "failed");
  assert.equal(s.turns, 1);
  assert.match(s.stopReason ?? "", /failed permanently: .*outside the workspace/);
  // The transcript stays well formed: the failing call has its result.
  assert.equal(pending(s).length, 0);
  const loose = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    limits: { maxTurns: 12 },
    stopOnPermanentError: false,
  });
  assert.equal(loose.status, "max_turns_exceeded");
  assert.equal(loose.toolRuns, 12);
});

Deno.test("the same call failing the same way twice in a row stops the run", async () => {
  await using f = await fixture("runaway");
  const flaky = defineTool({
    name: "list_files",
    description: "always fails",
    parameters: z.object({}),
    readOnly: true,
    run: () => {
      throw new Error("disk busy");
    },
  });
  const s = await run(newRun(task), { model: f.model, tools: [flaky] });
  assert.equal(s.status, "failed");
  assert.equal(s.turns, 2);
  assert.match(s.stopReason ?? "", /twice in a row: disk busy/);
});

Deno.test("messageOf: one wording of a thrown value, wherever it is reported", async () => {
  assert.equal(messageOf(new RangeError("too big")), "too big");
  assert.equal(messageOf(new Error("")), "Error", "an empty message gives the class");
  assert.equal(messageOf("plain"), "plain");
  assert.equal(messageOf({ code: "E42" }), '{"code":"E42"}');
  assert.equal(messageOf(undefined), "undefined");
  assert.equal(messageOf(7n), "7");
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.equal(messageOf(cycle), "[object Object]");
  // A model rejecting with a plain object: the reason says what it was.
  const model = { name: "m", complete: () => Promise.reject({ code: "E42" }) };
  const s = await run(newRun(task), { model });
  assert.equal(s.status, "failed");
  assert.equal(s.stopReason, 'model call failed: {"code":"E42"}');
});

Deno.test("invalid arguments and unknown tools become tool errors the model can read", async () => {
  await using f = await fixture("plan");
  const strict = defineTool({
    name: "read_file",
    description: "",
    parameters: z.object({ path: z.number() }),
    readOnly: true,
    run: () => "x",
  });
  const s = await run(newRun(task), {
    model: f.model,
    tools: [strict],
    stopOnPermanentError: false,
  });
  const texts = s.messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.match(texts[0], /Unknown tool "list_files". Available tools: read_file/);
  assert.match(texts[1], /Invalid arguments for read_file: path: .*number/);
});

Deno.test("repeat: dedupe serves the repeated read from cache, saving a tool run but not a turn", async () => {
  await using f = await fixture("repeat");
  const plain = await run(newRun(task), { model: f.model, tools: f.tools });
  const cached = await run(newRun(task), { model: f.model, tools: f.tools, dedupe: true });
  assert.equal(plain.toolRuns, 2);
  assert.equal(cached.toolRuns, 1);
  assert.equal(plain.turns, cached.turns);
  assert.equal(plain.costUsd, cached.costUsd);
});

Deno.test("destructive-twice: a read-only cache runs both deletes, the naive cache swallows one", async () => {
  for (const [dedupeAll, expected] of [[false, 2], [true, 1]] as const) {
    await using f = await fixture("destructive-twice");
    let s = await run(newRun("free space"), {
      model: f.model,
      tools: f.tools,
      dedupe: true,
      dedupeAll,
    });
    while (s.status === "interrupted" && s.interruption?.type === "approval") {
      s = await run(approve(s, s.interruption.callId), {
        model: f.model,
        tools: f.tools,
        dedupe: true,
        dedupeAll,
      });
    }
    assert.equal(s.status, "completed");
    // Two calls, two ids: the read-only gate runs both; the naive cache answers the second unrun.
    assert.equal(s.toolRuns, expected);
  }
});

Deno.test("approval: a needsApproval call stops the run; approve runs it, reject writes words", async () => {
  await using f = await fixture("destructive");
  const { sink, events } = memorySink();
  const stopped = await run(newRun("free space"), { model: f.model, tools: f.tools, trace: sink });
  assert.equal(stopped.status, "interrupted");
  const i = stopped.interruption;
  assert.ok(i?.type === "approval");
  assert.equal(i.toolName, "delete_file");
  assert.deepEqual(i.args, { path: "access.log" });
  assert.ok(events.some((e) => e.type === "approval_required" && e.callId === i.callId));
  assert.ok(await exists(`${f.ws.dir}/access.log`));

  const yes = await run(approve(stopped, i.callId), { model: f.model, tools: f.tools });
  assert.equal(yes.output, "Deleted access.log to free space.");
  assert.equal(await exists(`${f.ws.dir}/access.log`), false);
  assert.equal(yes.turns, 3);
  assert.throws(() => approve(yes, i.callId), RunStateError);
});

Deno.test("reject: with a reason or with none, the transcript says so and the model tells the truth", async () => {
  await using f = await fixture("destructive");
  const stopped = await run(newRun("free space"), { model: f.model, tools: f.tools });
  assert.ok(stopped.interruption?.type === "approval");
  const callId = stopped.interruption.callId;
  for (const reason of ["keep the logs", undefined, "   "]) {
    const r = reject(stopped, callId, reason);
    const text = r.messages.at(-1);
    assert.ok(text?.role === "tool" && text.tool_call_id === callId && text.content.length > 20);
    const done = await run(r, { model: f.model, tools: f.tools });
    assert.equal(done.output, "I did not delete anything: you declined the deletion.");
  }
  assert.ok(await exists(`${f.ws.dir}/access.log`));
  assert.throws(() => reject(stopped, "nope"), /Cannot reject call "nope" of run/);
});

Deno.test("run() refuses to resume a completed run with a clear error", async () => {
  await using f = await fixture("plan");
  const s = await run(newRun(task), { model: f.model, tools: f.tools });
  await assert.rejects(
    () => run(s, { model: f.model, tools: f.tools }),
    (e: Error) =>
      e instanceof RunStateError &&
      e.message === `Cannot resume run "${s.runId}": status is completed`,
  );
});

Deno.test("resume with pending calls runs them without asking the model again", async () => {
  await using f = await fixture("plan");
  const store = new MemoryRunStore();
  // Stop right after the first model reply is committed, before its tool ran.
  const ac = new AbortController();
  const s1 = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    store,
    signal: ac.signal,
    trace: (e) => {
      if (e.type === "turn") ac.abort("crash");
    },
  });
  assert.equal(s1.status, "interrupted");
  assert.equal(s1.turns, 1);
  assert.equal(pending(s1).length, 1);
  const saved = await store.load(s1.runId);
  const done = await run(saved, { model: f.model, tools: f.tools, store });
  assert.equal(done.status, "completed");
  assert.equal(done.turns, 3);
  assert.equal(f.calls.n, 3); // never billed twice
  assert.equal(done.toolRuns, 2);
});

Deno.test("a stop mid-tool ends the run interrupted/cancelled within milliseconds", async () => {
  await using f = await fixture("slow");
  const ac = new AbortController();
  const t0 = performance.now();
  let abortedAt = 0;
  const s = await run(newRun("scan"), {
    model: f.model,
    tools: f.tools,
    signal: ac.signal,
    trace: (e) => {
      if (e.type === "tool_progress" && !abortedAt) {
        abortedAt = performance.now();
        ac.abort("user pressed Stop");
      }
    },
  });
  const stoppedAt = performance.now();
  assert.equal(s.status, "interrupted");
  assert.deepEqual(s.interruption, { type: "cancelled", reason: "user pressed Stop" });
  assert.ok(abortedAt > t0);
  assert.ok(stoppedAt - abortedAt < 250, `${stoppedAt - abortedAt} ms`);
  assert.equal(pending(s).length, 1); // the scan stays pending for a resume
});

Deno.test("a tool that ignores the signal still cannot hold the run past a Stop", async () => {
  await using f = await fixture("slow");
  let release = () => {};
  let started = false;
  const stuck = defineTool({
    name: "scan_archive",
    description: "",
    parameters: z.object({}),
    readOnly: true,
    run: () => {
      started = true;
      return new Promise<string>((r) => release = () => r("late"));
    },
  });
  const ac = new AbortController();
  const s = await run(newRun("scan"), {
    model: f.model,
    tools: [stuck],
    signal: ac.signal,
    trace: (e) => {
      if (e.type === "tool_start") setTimeout(() => ac.abort("stop"), 20);
    },
  });
  release();
  assert.ok(started);
  assert.equal(s.status, "interrupted");
});

Deno.test("model failures stop the run failed with a clear reason", async () => {
  for (
    const [fault, pattern] of [["401", /auth/], ["malformed", /malformed/], [
      "500",
      /server/,
    ]] as const
  ) {
    await using f = await fixture("plan", { fault, maxRetries: 1, retryBaseMs: 1 });
    const s = await run(newRun(task), { model: f.model, tools: f.tools });
    assert.equal(s.status, "failed", fault);
    assert.match(s.stopReason ?? "", pattern);
    assert.equal(s.turns, 0);
  }
});

Deno.test("a run survives JSON round-trips between every step", async () => {
  await using f = await fixture("destructive");
  const opts = { model: f.model, tools: f.tools };
  const s1 = JSON.parse(JSON.stringify(await run(newRun("free"), opts)));
  const s2 = JSON.parse(JSON.stringify(approve(s1, s1.interruption.callId)));
  const done = await run(s2, opts);
  assert.equal(done.status, "completed");
  assert.equal(done.turns, 3);
});
