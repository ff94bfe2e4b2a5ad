// Conversations and forks of typed runs (an output schema): a repair prompt is not a
// person's message (no user_message, the turn cap goes on); a fork keeps the schema, is
// quoted with the answer tool its model is sent, and is not offered at an accepted answer.
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
