// @ai-sdk/openai-compatible, wrapped by aiSdkModel, against the scripted provider in process:
// the same run as reins's own OpenAI-compatible client, turn for turn and token for token.
import assert from "node:assert/strict";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiSdkModel } from "../ai_sdk/mod.ts";
import { memorySink, newRun, run } from "../mod.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";
import { scriptedFetch } from "../testing/scripted_provider.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import type { ProviderRequestInfo } from "../testing/scripted_provider.ts";
import { fixture } from "./helpers.ts";

function sdkModel(scenario: string, onRequest?: (info: ProviderRequestInfo) => void) {
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: "http://scripted.reins.local/v1",
    fetch: scriptedFetch({ onRequest }),
    includeUsage: true,
  });
  return aiSdkModel(provider.chatModel(scenario), { maxRetries: 0 });
}

Deno.test("the plan scenario completes in 3 turns through @ai-sdk/openai-compatible", async () => {
  await using f = await fixture("plan");
  let requests = 0;
  const model = sdkModel("plan", () => requests++);
  const done = await run(newRun("Which file mentions a timeout?"), { model, tools: f.tools });
  assert.equal(done.status, "completed");
  assert.equal(done.turns, 3);
  assert.equal(requests, 3);
  assert.equal(done.output, PLAN_ANSWER);
  const calls = done.messages.flatMap((m) =>
    m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.function.name) : []
  );
  assert.deepEqual(calls, ["list_files", "read_file"]);
});

Deno.test("the AI SDK path reports the same usage and cost as reins's own client", async () => {
  await using a = await fixture("plan");
  const ours = await run(newRun("Which file mentions a timeout?"), {
    model: scriptedModel("plan"),
    tools: a.tools,
  });
  await using b = await fixture("plan");
  const theirs = await run(newRun("Which file mentions a timeout?"), {
    model: sdkModel("plan"),
    tools: b.tools,
  });
  assert.equal(ours.status, "completed");
  assert.ok(ours.usage.prompt_tokens > 0 && ours.usage.completion_tokens > 0);
  assert.deepEqual(theirs.usage, ours.usage);
  assert.equal(theirs.costUsd, ours.costUsd);
  assert.equal(theirs.turns, ours.turns);
  assert.equal(theirs.output, ours.output);
});

Deno.test("a provider error through the AI SDK is a failed run naming its kind", async () => {
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: "http://scripted.reins.local/v1",
    fetch: scriptedFetch({ fault: "401" }),
  });
  const done = await run(newRun("hi"), { model: aiSdkModel(provider.chatModel("echo")) });
  assert.equal(done.status, "failed");
  assert.match(
    done.stopReason ?? "",
    /model call failed \(auth\): scripted\.chat\/echo failed after 1 attempt/,
  );
});

Deno.test("a retryable provider error is retried, then the run goes on", async () => {
  let n = 0;
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: "http://scripted.reins.local/v1",
    fetch: scriptedFetch({ faults: () => n++ < 2 ? "500" : undefined }),
  });
  const model = aiSdkModel(provider.chatModel("echo"), { retryBaseMs: 1 });
  const done = await run(newRun("hi"), { model });
  assert.equal(done.status, "completed");
  assert.equal(done.output, "hi");
  assert.equal(n, 3);
});

Deno.test("streamed through @ai-sdk/openai-compatible: deltas join to each reply, same usage and cost", async () => {
  await using a = await fixture("plan");
  const { sink, events } = memorySink();
  let streamedRequests = 0;
  const inner = scriptedFetch();
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: "http://scripted.reins.local/v1",
    fetch: (input, init) => {
      if (JSON.parse(String(init?.body)).stream === true) streamedRequests++;
      return inner(input, init);
    },
    includeUsage: true,
  });
  const streamed = await run(newRun("Which file mentions a timeout?"), {
    model: aiSdkModel(provider.chatModel("plan"), { maxRetries: 0 }),
    tools: a.tools,
    trace: sink,
  });
  await using b = await fixture("plan");
  const plain = await run(newRun("Which file mentions a timeout?"), {
    model: sdkModel("plan"),
    tools: b.tools,
  });
  assert.equal(streamed.status, "completed");
  assert.equal(streamedRequests, 3);
  const replies = streamed.messages.filter((m) => m.role === "assistant");
  const deltas = events.filter((e) => e.type === "text_delta");
  assert.ok(deltas.length > replies.length, `${deltas.length} deltas`);
  replies.forEach((m, i) => {
    const joined = deltas.filter((e) => e.turn === i + 1).map((e) => e.delta).join("");
    assert.equal(joined, m.content ?? "", `turn ${i + 1}`);
  });
  assert.equal(streamed.output, PLAN_ANSWER);
  assert.deepEqual(streamed.messages, plain.messages);
  assert.deepEqual(streamed.usage, plain.usage);
  assert.equal(streamed.costUsd, plain.costUsd);
  assert.equal(streamed.turns, plain.turns);
});
