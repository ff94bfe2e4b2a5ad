// Conversations and forks with the other features: typed runs (a repair prompt is not a
// person's message: no user_message, the turn cap goes on; a fork keeps the schema, is
// quoted with the answer tool its model is sent, and is not offered at an accepted
// answer) and OpenTelemetry (a follow-up's event, a replayed read's span).
import assert from "node:assert/strict";
import { run } from "../harness/run.ts";
import { followUp, turnsSinceLastMessage } from "../harness/follow_up.ts";
import { forkableTurns, forkState, quoteNextCall } from "../harness/fork.ts";
import { newRun } from "../harness/state.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import type { TraceEvent } from "../harness/trace.ts";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { SCRIPTED_BASE_URL } from "../testing/scripted_model.ts";
import { scriptedFetch } from "../testing/scripted_provider.ts";
import { LOCATION_ANSWER, TIMEOUT_LOCATION } from "../testing/scenarios.ts";
import { fixture } from "./helpers.ts";
import { named, telemetry } from "./otel_helpers.ts";

const task = "Where is the timeout logged? Answer with the file and its line number.";

Deno.test("a typed run's repair prompt is no follow-up; a fork keeps the schema, quoted exactly", async () => {
  await using f = await fixture("extract");
  const store = new MemoryRunStore();
  const events: TraceEvent[] = [];
  const trace = (e: TraceEvent) => void events.push(e);
  const done = await run(newRun(task), {
    model: f.model,
    tools: f.tools,
    output: TIMEOUT_LOCATION,
    store,
    trace,
  });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, JSON.parse(LOCATION_ANSWER));
  assert.equal(done.outputRepairs?.length, 1, "one repair prompt, a user message");
  assert.equal(turnsSinceLastMessage(done), 3, "the repair does not reset the turn cap");
  assert.ok(!events.some((e) => e.type === "user_message"));
  // A fork after the read: the same schema judges it, without `output` given.
  const fork = forkState(done, { atTurn: 1 });
  assert.deepEqual(fork.outputSchema, done.outputSchema);
  await store.save(fork);
  const quote = await quoteNextCall(fork, { model: f.model, tools: f.tools });
  events.length = 0;
  const forked = await run(fork, { model: f.model, tools: f.tools, store, trace });
  assert.equal(forked.status, "completed");
  assert.deepEqual(forked.output, done.output);
  const first = events.find((e) => e.type === "turn");
  assert.ok(first?.type === "turn");
  assert.equal(first.prompt_tokens, quote.promptTokens);
  assert.ok(!events.some((e) => e.type === "user_message"));
  // A follow-up is answered under the schema too (the scenario repairs again).
  const again = await run(followUp(forked, "And where else?"), { model: f.model, tools: f.tools });
  assert.equal(again.status, "completed");
  assert.deepEqual(again.output, done.output);
});

Deno.test("tool mode: the quote counts the final_answer tool; an accepted answer is not forkable", async () => {
  await using f = await fixture("extract");
  const model = createOpenAIModel({
    baseUrl: SCRIPTED_BASE_URL,
    model: "extract",
    fetch: scriptedFetch(),
    structuredOutput: "tool",
  });
  const events: TraceEvent[] = [];
  const opts = { model, tools: f.tools, output: TIMEOUT_LOCATION };
  const fresh = newRun(task);
  const quote = await quoteNextCall(fresh, opts);
  const plain = await quoteNextCall(fresh, { model, tools: f.tools });
  assert.ok(quote.promptTokens > plain.promptTokens, "the answer tool is in the prompt");
  await run(fresh, { ...opts, trace: (e) => void events.push(e) });
  const first = events.find((e) => e.type === "turn");
  assert.ok(first?.type === "turn");
  assert.equal(first.prompt_tokens, quote.promptTokens);
  // A transcript ending with an accepted final_answer call: its turn is the answer.
  const s = newRun(task);
  s.messages.push(
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "a1",
        type: "function",
        function: { name: "final_answer", arguments: LOCATION_ANSWER },
      }],
    },
    { role: "tool", tool_call_id: "a1", name: "final_answer", content: "Accepted." },
  );
  s.turns = 1;
  assert.deepEqual([...forkableTurns(s.messages)], [0]);
  assert.throws(() => forkState(s, { atTurn: 1 }), /final answer/);
});

Deno.test("otel: a follow-up is an event of the run's span; a replayed read's span says whence", async () => {
  await using f = await fixture("plan");
  const t = telemetry();
  const store = new MemoryRunStore();
  const done = await run(newRun("Which file mentions a timeout?"), {
    model: f.model,
    tools: f.tools,
    store,
  });
  const asked = await run(followUp(done, "Which worker?"), {
    model: f.model,
    tools: f.tools,
    observe: t.observe,
  });
  const fork = forkState(done, { atTurn: 1 });
  await store.save(fork);
  await run(fork, { model: f.model, tools: f.tools, store, observe: t.observe });
  const spans = t.spans();
  const roots = named(spans, "invoke_agent reins");
  const conversation = roots.find((s) => s.attributes["reins.run.id"] === asked.runId);
  const event = conversation?.events.find((e) => e.name === "user_message");
  assert.equal(event?.attributes?.["reins.message.index"], 6);
  const [read] = named(spans, "execute_tool read_file");
  assert.equal(read.attributes["reins.tool.replayed_from_run"], done.runId);
  assert.equal(read.attributes["reins.tool.replayed_from_call"], "call_1_0");
  await t.close();
});
