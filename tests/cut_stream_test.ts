// A streamed reply cut short is a transport failure, never an answer: retried
// like a dropped connection (the lost reply counted as an estimate), failed
// with a clear reason once retries are spent, and no tool call of an
// unfinished reply runs. A real HTTP server on loopback ends the bodies; the
// official `openai` client and @ai-sdk/openai-compatible read the same bodies.
import assert from "node:assert/strict";
import { z } from "zod";
import OpenAI from "npm:openai@7.59.0";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenAIModel } from "../openai/openai_model.ts";
import { aiSdkModel } from "../ai_sdk/mod.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { defineTool } from "../harness/tool.ts";
import { memorySink, type SpendEstimatedEvent } from "../harness/trace.ts";
import { PARTIAL, type Plan, serveCutting, WHOLE } from "./fixtures/cutting_server.ts";

const prices = { inputPerMillion: 1, outputPerMillion: 4 };

/** Runs one task against a server playing `plans`; the tool counts its runs. */
async function runAgainst(plans: Plan[], maxRetries = 3) {
  const endpoint = serveCutting(plans);
  let noted = 0;
  const note = defineTool({
    name: "note",
    description: "Notes a text.",
    parameters: z.object({ text: z.string() }),
    run: () => `noted ${++noted}`,
  });
  const trace = memorySink();
  try {
    const model = createOpenAIModel({
      baseUrl: endpoint.url,
      model: "cutting",
      maxRetries,
      retryBaseMs: 1,
    });
    const done = await run(newRun("Which file mentions a timeout?"), {
      model,
      tools: [note],
      prices,
      trace: trace.sink,
    });
    const estimates = trace.events.filter((e): e is SpendEstimatedEvent =>
      e.type === "spend_estimated"
    );
    return { done, requests: endpoint.requests(), noted: () => noted, estimates };
  } finally {
    await endpoint.server.shutdown();
  }
}

Deno.test("a stream cut mid-text is retried, the lost reply counted as an estimate", async () => {
  const r = await runAgainst(["cut_text", "whole"]);
  assert.equal(r.done.status, "completed", r.done.stopReason ?? "");
  assert.equal(r.done.output, WHOLE);
  assert.equal(r.requests, 2);
  assert.equal(r.estimates.length, 1);
  const [e] = r.estimates;
  assert.equal(e.basis, "lost_reply");
  // The prompt the provider reported for the same request, and the partial text counted.
  assert.equal(e.prompt_tokens, 40);
  assert.ok(e.completion_tokens! > 0);
  assert.ok(r.done.estimatedUsd > 0);
  assert.equal(r.done.estimatedUsd, e.usd);
  // The answered call (40 + 9 tokens) plus the estimate.
  assert.ok(Math.abs(r.done.costUsd - (e.usd + (40 * 1 + 9 * 4) / 1e6)) < 1e-9);
});

for (const plan of ["cut_text", "empty", "done_no_finish"] as const) {
  Deno.test(`a stream that ends without a finish_reason (${plan}) fails once retries are spent`, async () => {
    const r = await runAgainst([plan], 2);
    assert.equal(r.done.status, "failed");
    assert.equal(r.requests, 3);
    assert.equal(r.done.output, null);
    assert.match(
      r.done.stopReason ?? "",
      /model call failed \(network\): The stream from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions ended before the reply finished .*after 3 attempts/,
    );
    assert.equal(r.estimates.length, 3);
    assert.ok(r.done.estimatedUsd > 0);
    assert.ok(r.done.costUsd >= r.done.estimatedUsd);
  });
}

Deno.test("no tool call of a reply cut between two calls ever runs", async () => {
  const r = await runAgainst(["cut_calls"], 1);
  assert.equal(r.done.status, "failed");
  assert.equal(r.noted(), 0);
  assert.equal(r.requests, 2);
  assert.ok(!r.done.messages.some((m) => m.role === "assistant"));
});

Deno.test("a reply cut between two calls, then whole, runs only the whole reply", async () => {
  const r = await runAgainst(["cut_calls", "whole"]);
  assert.equal(r.done.status, "completed");
  assert.equal(r.noted(), 0);
  assert.equal(r.done.output, WHOLE);
});

Deno.test("a connection reset mid-stream is retried and its lost reply estimated", async () => {
  const r = await runAgainst(["reset", "whole"]);
  assert.equal(r.done.status, "completed");
  assert.equal(r.requests, 2);
  assert.equal(r.estimates.length, 1);
  assert.ok(r.done.estimatedUsd > 0);
});

Deno.test("a finish_reason without usage or [DONE] is a whole reply, counted locally", async () => {
  const r = await runAgainst(["finish_only"]);
  assert.equal(r.done.status, "completed");
  assert.equal(r.done.output, WHOLE);
  assert.equal(r.requests, 1);
  assert.equal(r.estimates.length, 0);
  assert.ok(r.done.usage.prompt_tokens > 0 && r.done.usage.completion_tokens > 0);
});

Deno.test("the official openai client reads the same bodies the same way", async () => {
  for (
    const [plan, whole] of [["cut_text", false], ["empty", false], ["finish_only", true]] as const
  ) {
    const endpoint = serveCutting([plan]);
    try {
      const client = new OpenAI({ baseURL: endpoint.url, apiKey: "k", maxRetries: 0 });
      const stream = client.chat.completions.stream({
        model: "cutting",
        messages: [{ role: "user", content: "hi" }],
      });
      if (whole) {
        const done = await stream.finalChatCompletion();
        assert.equal(done.choices[0].message.content, WHOLE);
      } else {
        await assert.rejects(
          stream.finalChatCompletion(),
          /missing finish_reason|without sending any chunks/,
        );
      }
    } finally {
      await endpoint.server.shutdown();
    }
  }
});

Deno.test("@ai-sdk/openai-compatible draws the same line: a finish_reason ends the reply", async () => {
  const plans = [["cut_text", false], ["empty", false], ["done_no_finish", false], [
    "finish_only",
    true,
  ]] as const;
  for (const [plan, whole] of plans) {
    const endpoint = serveCutting([plan]);
    try {
      const provider = createOpenAICompatible({ name: "cutting", baseURL: endpoint.url });
      const done = await run(newRun("hi"), {
        model: aiSdkModel(provider.chatModel("cutting"), { maxRetries: 0 }),
        trace: memorySink().sink, // a watched run streams (doStream)
      });
      if (whole) {
        assert.equal(done.status, "completed", done.stopReason ?? "");
        assert.equal(done.output, WHOLE);
      } else {
        assert.equal(done.status, "failed", `${plan}: answered ${JSON.stringify(done.output)}`);
        assert.notEqual(done.output, PARTIAL);
        assert.match(done.stopReason ?? "", /stream ended without a finish reason/);
      }
    } finally {
      await endpoint.server.shutdown();
    }
  }
});
