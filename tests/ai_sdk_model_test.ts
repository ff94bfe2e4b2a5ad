// aiSdkModel against the AI SDK's own mock language models (v4 and v3).
import assert from "node:assert/strict";
import { z } from "zod";
import { simulateReadableStream } from "npm:ai@7.0.173";
import { MockLanguageModelV3, MockLanguageModelV4 } from "npm:ai@7.0.173/test";
import { aiSdkModel } from "../ai_sdk/mod.ts";
import { defineTool, memorySink, newRun, run } from "../mod.ts";
import { roundUsd } from "../harness/cost.ts";

const usage = (input: number, output: number, cacheRead?: number, cacheWrite?: number) => ({
  inputTokens: {
    total: input,
    noCache: input - (cacheRead ?? 0) - (cacheWrite ?? 0),
    cacheRead,
    cacheWrite,
  },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  parameters: z.object({ word: z.string() }),
  readOnly: true,
  run: ({ word }) => `${word}: a small bird`,
});

function twoTurns() {
  return new MockLanguageModelV4({
    provider: "mock",
    modelId: "mock-1",
    doGenerate: [
      {
        content: [
          { type: "reasoning", text: "I should look it up." },
          { type: "text", text: "Looking it up." },
          { type: "tool-call", toolCallId: "t1", toolName: "lookup", input: '{"word":"wren"}' },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage: usage(1000, 20, 800, 100),
        warnings: [],
        response: { modelId: "mock-1-2026" },
      },
      {
        content: [{ type: "text", text: "A wren is a small bird." }],
        finishReason: { unified: "stop", raw: "end_turn" },
        usage: usage(1100, 10, 900),
        warnings: [],
      },
    ],
  });
}

Deno.test("a run on the AI SDK mock model: tool calls out, results back, usage priced with the cache", async () => {
  const mock = twoTurns();
  const prices = {
    inputPerMillion: 3,
    outputPerMillion: 15,
    cachedInputPerMillion: 0.3,
    cacheWritePerMillion: 3.75,
  };
  const model = aiSdkModel(mock, { prices });
  assert.equal(model.name, "mock-1");
  const done = await run(newRun("What is a wren?", { system: "Be brief." }), {
    model,
    tools: [lookup],
  });
  assert.equal(done.status, "completed");
  assert.equal(done.output, "A wren is a small bird.");
  assert.deepEqual(done.usage, { prompt_tokens: 2100, completion_tokens: 30 });
  const expected = (100 * 3 + 800 * 0.3 + 100 * 3.75 + 20 * 15) / 1e6 +
    (200 * 3 + 900 * 0.3 + 10 * 15) / 1e6;
  assert.equal(roundUsd(done.costUsd), roundUsd(expected));
  // The reply came back as a chat-completions message...
  assert.deepEqual(done.messages.find((m) => m.role === "assistant"), {
    role: "assistant",
    content: "Looking it up.",
    tool_calls: [{
      id: "t1",
      type: "function",
      function: { name: "lookup", arguments: '{"word":"wren"}' },
    }],
  });
  // ...and the transcript went out as an AI SDK prompt, tools with their JSON schema.
  const second = mock.doGenerateCalls[1];
  assert.deepEqual(second.prompt[0], { role: "system", content: "Be brief." });
  assert.deepEqual(second.prompt.slice(-3), [
    { role: "user", content: [{ type: "text", text: "What is a wren?" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Looking it up." },
        { type: "tool-call", toolCallId: "t1", toolName: "lookup", input: { word: "wren" } },
      ],
    },
    {
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: "t1",
        toolName: "lookup",
        output: { type: "text", value: "wren: a small bird" },
      }],
    },
  ]);
  assert.deepEqual(second.tools, [{
    type: "function",
    name: "lookup",
    description: "Looks a word up.",
    inputSchema: lookup.jsonSchema,
  }]);
  assert.deepEqual(second.toolChoice, { type: "auto" });
});

Deno.test("finish reasons and the reported model name are mapped", async () => {
  const model = aiSdkModel(twoTurns());
  const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };
  const first = await model.complete(request, new AbortController().signal);
  assert.equal(first.finishReason, "tool_calls");
  assert.equal(first.model, "mock-1-2026");
  assert.deepEqual(first.usage, {
    prompt_tokens: 1000,
    completion_tokens: 20,
    cached_prompt_tokens: 800,
    cache_write_tokens: 100,
  });
  const cut = aiSdkModel(
    new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "trunc" }],
        finishReason: { unified: "length", raw: "max_tokens" },
        usage: usage(5, 4096),
        warnings: [],
      },
    }),
  );
  const reply = await cut.complete({ ...request, maxTokens: 4096 }, new AbortController().signal);
  assert.equal(reply.finishReason, "length");
});

Deno.test("the run's signal reaches the model, and max tokens with it", async () => {
  const ac = new AbortController();
  let seen: AbortSignal | undefined;
  let maxOutputTokens: number | undefined;
  const mock = new MockLanguageModelV4({
    doGenerate: (options) => {
      seen = options.abortSignal;
      maxOutputTokens = options.maxOutputTokens;
      return new Promise((_, reject) => {
        options.abortSignal?.addEventListener(
          "abort",
          () => reject(new Error("aborted by signal")),
        );
        setTimeout(() => ac.abort("user pressed Stop"), 5);
      });
    },
  });
  const done = await run(newRun("hi"), {
    model: aiSdkModel(mock),
    signal: ac.signal,
    budgetMode: "hard",
    limits: { maxBudgetUsd: 1 },
  });
  assert.equal(done.status, "interrupted");
  assert.deepEqual(done.interruption, { type: "cancelled", reason: "user pressed Stop" });
  assert.equal(seen?.aborted, true);
  assert.ok(typeof maxOutputTokens === "number" && maxOutputTokens > 0);
});

Deno.test("a v3 model works too, and a non-model is a TypeError", async () => {
  const mock = new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: "text", text: "from v3" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: usage(7, 3),
      warnings: [],
    },
  });
  const done = await run(newRun("hi"), { model: aiSdkModel(mock) });
  assert.equal(done.output, "from v3");
  assert.deepEqual(done.usage, { prompt_tokens: 7, completion_tokens: 3 });
  assert.throws(() => aiSdkModel({} as never), TypeError);
  assert.throws(
    () => aiSdkModel({ specificationVersion: "v2", doGenerate() {} } as never),
    /specification "v2" is not supported/,
  );
});

Deno.test("a reply without usage is counted locally, and a nameless tool call is malformed", async () => {
  const counted = aiSdkModel(
    new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "no usage here" }],
        finishReason: { unified: "stop", raw: undefined },
        usage: { inputTokens: {}, outputTokens: {} } as never,
        warnings: [],
      },
    }),
  );
  const request = { messages: [{ role: "user" as const, content: "hello there" }], tools: [] };
  const reply = await counted.complete(request, new AbortController().signal);
  assert.ok(reply.usage.prompt_tokens > 0 && reply.usage.completion_tokens > 0);
  const broken = aiSdkModel(
    new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "tool-call", toolCallId: "x", toolName: "", input: "{}" }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: usage(1, 1),
        warnings: [],
      },
    }),
  );
  await assert.rejects(
    broken.complete(request, new AbortController().signal),
    /Malformed reply from mock-provider\/mock-model-id: content\[0\]\.toolName is missing/,
  );
});

// Streaming: with the request's onText the model's doStream is read.

type Part = Record<string, unknown>;
const streamOf = (chunks: Part[]) => ({ stream: simulateReadableStream({ chunks }) as never });
const textParts = (text: string, id = "t0"): Part[] => [
  { type: "text-start", id },
  ...text.match(/.{1,4}/g)!.map((delta) => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

function twoStreamedTurns() {
  return new MockLanguageModelV4({
    provider: "mock",
    modelId: "mock-1",
    doStream: [
      streamOf([
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: "r1", modelId: "mock-1-2026" },
        { type: "reasoning-delta", id: "r", delta: "I should look it up." },
        ...textParts("Looking it up."),
        { type: "tool-input-start", id: "t1", toolName: "lookup" },
        { type: "tool-input-delta", id: "t1", delta: '{"word":' },
        { type: "tool-input-delta", id: "t1", delta: '"wren"}' },
        { type: "tool-input-end", id: "t1" },
        { type: "tool-call", toolCallId: "t1", toolName: "lookup", input: '{"word":"wren"}' },
        {
          type: "finish",
          finishReason: { unified: "tool-calls", raw: "tool_use" },
          usage: usage(1000, 20, 800, 100),
        },
      ]),
      streamOf([
        ...textParts("A wren is a small bird."),
        {
          type: "finish",
          finishReason: { unified: "stop", raw: "end_turn" },
          usage: usage(1100, 10, 900),
        },
      ]),
    ],
  });
}

Deno.test("with onText the model streams: deltas join to each reply, which equals doGenerate's", async () => {
  const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };
  const deltas: string[] = [];
  const streamed = twoStreamedTurns();
  const a = await aiSdkModel(streamed).complete(
    { ...request, onText: (d) => deltas.push(d) },
    new AbortController().signal,
  );
  const b = await aiSdkModel(twoTurns()).complete(request, new AbortController().signal);
  assert.equal(streamed.doStreamCalls.length, 1);
  assert.ok(deltas.length > 1);
  assert.equal(deltas.join(""), "Looking it up.");
  assert.deepEqual(a, b);
});

Deno.test("a streamed run: text_delta events per turn, the same usage and cost as without streaming", async () => {
  const prices = { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 };
  const { sink, events } = memorySink();
  const on = await run(newRun("What is a wren?"), {
    model: aiSdkModel(twoStreamedTurns(), { prices }),
    tools: [lookup],
    trace: sink,
  });
  const off = await run(newRun("What is a wren?"), {
    model: aiSdkModel(twoTurns(), { prices }),
    tools: [lookup],
  });
  assert.equal(on.output, "A wren is a small bird.");
  const byTurn = (t: number) =>
    events.flatMap((e) => e.type === "text_delta" && e.turn === t ? [e.delta] : []).join("");
  assert.equal(byTurn(1), "Looking it up.");
  assert.equal(byTurn(2), on.output);
  assert.deepEqual(on.messages, off.messages);
  assert.deepEqual(on.usage, off.usage);
  assert.equal(on.costUsd, off.costUsd);
});

Deno.test("a v3 stream with only tool-input deltas still assembles the tool call", async () => {
  const mock = new MockLanguageModelV3({
    doStream: streamOf([
      { type: "tool-input-start", id: "c9", toolName: "lookup" },
      { type: "tool-input-delta", id: "c9", delta: '{"word":"owl"}' },
      { type: "tool-input-end", id: "c9" },
      { type: "finish", finishReason: { unified: "tool-calls", raw: null }, usage: usage(9, 4) },
    ]),
  });
  const reply = await aiSdkModel(mock).complete(
    { messages: [{ role: "user", content: "owl?" }], tools: [], onText: () => {} },
    new AbortController().signal,
  );
  assert.deepEqual(reply.message.tool_calls, [{
    id: "c9",
    type: "function",
    function: { name: "lookup", arguments: '{"word":"owl"}' },
  }]);
  assert.equal(reply.finishReason, "tool_calls");
  assert.deepEqual(reply.usage, { prompt_tokens: 9, completion_tokens: 4 });
});

Deno.test("a retryable stream error is retried; after shown text the watchers are reset", async () => {
  const retryable = { message: "overloaded", statusCode: 529, isRetryable: true };
  const mock = new MockLanguageModelV4({
    doStream: [
      streamOf([{ type: "error", error: retryable }]),
      streamOf([...textParts("Half an ans"), { type: "error", error: retryable }]),
      streamOf([...textParts("The whole answer."), {
        type: "finish",
        finishReason: { unified: "stop", raw: "stop" },
        usage: usage(5, 3),
      }]),
    ],
  });
  const seen: string[] = [];
  const reply = await aiSdkModel(mock, { retryBaseMs: 1 }).complete({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    onText: (d) => seen.push(d),
    onReset: () => seen.push("<reset>"),
  }, new AbortController().signal);
  assert.equal(mock.doStreamCalls.length, 3);
  assert.equal(reply.message.content, "The whole answer.");
  assert.equal(seen.filter((s) => s === "<reset>").length, 1);
  assert.equal(seen.slice(0, seen.indexOf("<reset>")).join(""), "Half an ans");
  assert.equal(seen.slice(seen.indexOf("<reset>") + 1).join(""), "The whole answer.");
  const failing = new MockLanguageModelV4({
    doStream: streamOf([{ type: "error", error: { message: "bad key", statusCode: 401 } }]),
  });
  await assert.rejects(
    aiSdkModel(failing).complete(
      { messages: [], tools: [], onText() {} },
      new AbortController().signal,
    ),
    /failed after 1 attempt: bad key/,
  );
});

Deno.test("a Stop mid-stream rejects at once with its reason, the signal passed to doStream", async () => {
  const ac = new AbortController();
  const mock = new MockLanguageModelV4({
    doStream: {
      stream: new ReadableStream({
        start(c) {
          c.enqueue({ type: "text-delta", id: "0", delta: "Once upon" });
        },
      }) as never,
    },
  });
  const deltas: string[] = [];
  const pending = aiSdkModel(mock).complete({
    messages: [{ role: "user", content: "story" }],
    tools: [],
    onText: (d) => (deltas.push(d), ac.abort("user pressed Stop")),
  }, ac.signal);
  await assert.rejects(pending, (e) => e === "user pressed Stop");
  assert.deepEqual(deltas, ["Once upon"]);
  assert.equal(mock.doStreamCalls[0].abortSignal?.aborted, true);
});
