// Follow-ups (harness/follow_up.ts): a stopped run takes a person's next message and
// answers it in the same run; the turn cap counts since the last message, the budget
// is the conversation's.
import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { followUp, turnsSinceLastMessage } from "../harness/follow_up.ts";
import { newRun, type RunState } from "../harness/state.ts";
import { memorySink } from "../harness/trace.ts";
import { RunStateError } from "../harness/errors.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import { fixture } from "./helpers.ts";

const task = "Which file mentions a timeout?";

Deno.test("followUp: a completed plan run answers the next message in the same run", async () => {
  await using f = await fixture("plan");
  const store = new MemoryRunStore();
  const { sink, events } = memorySink();
  const options = { model: f.model, tools: f.tools, trace: sink, store };
  const first = await run(newRun(task), options);
  assert.equal(first.status, "completed");
  const asked = followUp(first, "And which worker was it?");
  assert.equal(first.messages.length, 6, "the input is not mutated");
  assert.equal(asked.status, "running");
  assert.equal(asked.output, null);
  const second = await run(asked, options);
  assert.equal(second.runId, first.runId);
  assert.equal(second.status, "completed");
  assert.equal(second.output, PLAN_ANSWER); // plan answers from its fourth reply on
  assert.equal(second.turns, 4);
  assert.equal(second.messages.length, 8);
  assert.ok(second.costUsd > first.costUsd, "the spend adds up");
  assert.equal(second.usage.prompt_tokens > first.usage.prompt_tokens, true);
  const types = events.map((e) => e.type).filter((t) => t !== "text_delta");
  const at = types.indexOf("user_message");
  assert.ok(at > types.indexOf("run_stopped"), "the message comes after the first stop");
  assert.deepEqual(types.slice(at), ["user_message", "turn", "run_stopped"]);
  const announced = events.find((e) => e.type === "user_message");
  assert.ok(announced?.type === "user_message");
  assert.equal(announced.index, 6);
  assert.equal(announced.turns, 3);
  assert.equal((await store.load(first.runId)).messages.length, 8);
});

Deno.test("followUp: the turn cap counts turns since the last message", async () => {
  await using f = await fixture("runaway");
  const options = { model: f.model, tools: f.tools, limits: { maxTurns: 2 } };
  const first = await run(newRun(task), options);
  assert.equal(first.status, "max_turns_exceeded");
  assert.equal(first.stopReason, "turn cap reached: 2 of 2 turns used");
  const second = await run(followUp(first, "Keep going."), { model: f.model, tools: f.tools });
  assert.equal(second.status, "max_turns_exceeded");
  assert.equal(second.turns, 4);
  assert.equal(turnsSinceLastMessage(second), 2);
  assert.equal(second.stopReason, "turn cap reached: 2 of 2 turns since the last message used");
  const third = await run(followUp(second, "More.", { limits: { maxTurns: 3 } }), {
    model: f.model,
    tools: f.tools,
  });
  assert.equal(third.turns, 7);
  assert.equal(third.limits.maxTurns, 3);
});

Deno.test("followUp: the budget is the conversation's; a follow-up may raise it", async () => {
  await using f = await fixture("plan");
  const first = await run(newRun(task), { model: f.model, tools: f.tools });
  const budget = first.costUsd; // spent exactly: the next message may not call
  const capped = { ...first, limits: { ...first.limits, maxBudgetUsd: budget } };
  const refused = await run(followUp(capped, "And?"), { model: f.model, tools: f.tools });
  assert.equal(refused.status, "budget_exceeded");
  assert.equal(refused.turns, 3);
  const raised = followUp(refused, "And?", { limits: { maxBudgetUsd: budget * 2 } });
  const done = await run(raised, { model: f.model, tools: f.tools });
  assert.equal(done.status, "completed");
  assert.equal(done.turns, 4);
  assert.equal(done.limits.maxBudgetUsd, budget * 2);
});

Deno.test("followUp: refused while running, after a failure, awaiting a verdict, for a child", async () => {
  await using f = await fixture("destructive");
  const waiting = await run(newRun(task), { model: f.model, tools: f.tools });
  assert.equal(waiting.status, "interrupted");
  assert.throws(
    () => followUp(waiting, "hi"),
    (e) =>
      e instanceof RunStateError &&
      /Cannot follow up run ".+": call "call_1_0" awaits a verdict: decide the verdict first/
        .test(e.message),
  );
  const fresh = newRun(task);
  assert.throws(() => followUp(fresh, "hi"), /it is running; wait until it stops/);
  assert.throws(() => followUp({ ...fresh, status: "failed" }, "hi"), /status is failed/);
  const child = newRun("q", { parent: { runId: "p", rootId: "p", callId: "c" } });
  child.status = "completed";
  assert.throws(() => followUp(child, "hi"), /subagent of run "p"; send the message to its root/);
  assert.throws(() => followUp({ ...fresh, status: "completed" }, "  "), TypeError);
  const cut = structuredClone(waiting);
  cut.interruption = { type: "cancelled", reason: "stop" };
  assert.throws(() => followUp(cut, "hi"), /"call_1_0" of its last reply has no result yet/);
});

/** The count as it was first written: a scan back to the last person's message. */
function scannedBack(s: Pick<RunState, "messages" | "turns" | "outputRepairs">): number {
  const repairs = new Set(s.outputRepairs ?? []);
  const isMessage = (i: number) => s.messages[i].role === "user" && !repairs.has(i);
  let since = 0;
  let i = s.messages.length - 1;
  for (; i >= 0 && !isMessage(i); i--) if (s.messages[i].role === "assistant") since++;
  for (let j = i - 1; j >= 0; j--) if (isMessage(j)) return since;
  return s.turns;
}

Deno.test("turnsSinceLastMessage reads only what was added, and counts as a scan back does", () => {
  const seeded = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let seed = 1; seed <= 50; seed++) {
    const random = seeded(seed);
    const s = newRun("task");
    let reads = 0;
    // Counts the messages read by index: each call may read only those added since the last.
    s.messages = new Proxy(s.messages, {
      get: (target, key, receiver) => {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    let before = 0;
    for (let step = 0; step < 60; step++) {
      const r = random();
      if (r < 0.45) {
        s.messages.push({ role: "assistant", content: "a" });
        s.turns++;
      } else if (r < 0.75) {
        s.messages.push({ role: "tool", tool_call_id: "c", name: "t", content: "t" });
      } else if (r < 0.9) s.messages.push({ role: "user", content: "a person's next message" });
      else {
        s.messages.push({ role: "user", content: "a repair prompt" });
        (s.outputRepairs ??= []).push(s.messages.length - 1);
      }
      reads = 0;
      const count = turnsSinceLastMessage(s);
      const added = s.messages.length - before;
      before = s.messages.length;
      // Plus one look at the last message read: a rewritten transcript is read afresh.
      assert.ok(reads <= added + 1, `seed ${seed} step ${step}: read ${reads} for ${added}`);
      assert.equal(count, scannedBack(s), `seed ${seed} step ${step}`);
    }
  }
  // A repair marked on a message already read (a state built by hand) is still not a message.
  const s = newRun("task");
  s.messages.push({ role: "assistant", content: "a" }, { role: "user", content: "repair" });
  s.turns = 1;
  assert.equal(turnsSinceLastMessage(s), 0);
  s.outputRepairs = [2];
  assert.equal(turnsSinceLastMessage(s), 1);
  // A transcript rewritten in place (same length, its last message replaced) is read afresh.
  const t = newRun("task");
  t.messages.push(
    { role: "assistant", content: "a" },
    { role: "user", content: "next" },
    { role: "assistant", content: "b" },
  );
  t.turns = 2;
  assert.equal(turnsSinceLastMessage(t), 1);
  t.messages[3] = { role: "user", content: "another" };
  assert.equal(turnsSinceLastMessage(t), 0);
});
