// The official OpenAI client and the AI SDK, unchanged, against the scripted provider (in process).
import assert from "node:assert/strict";
import OpenAI from "npm:openai@7.59.0";
import { streamText } from "npm:ai@7.0.173";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { scriptedFetch } from "../testing/scripted_provider.ts";
import { PLAN_ANSWER } from "../testing/scenarios.ts";

const client = new OpenAI({
  apiKey: "test",
  baseURL: "http://scripted.local/v1",
  fetch: scriptedFetch(),
});

Deno.test("the official openai client lists models and completes with tool calls", async () => {
  const models = await client.models.list();
  assert.ok(models.data.some((m) => m.id === "plan"));
  const first = await client.chat.completions.create({
    model: "plan",
    messages: [{ role: "user", content: "Which file mentions a timeout?" }],
  });
  const call = first.choices[0].message.tool_calls?.[0];
  assert.ok(call?.type === "function" && call.function.name === "list_files");
  assert.equal(first.choices[0].finish_reason, "tool_calls");
  assert.ok(first.usage && first.usage.prompt_tokens > 0);
});

Deno.test("the official openai client streams a scripted reply", async () => {
  const stream = await client.chat.completions.create({
    model: "plan",
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "a",
          type: "function",
          function: { name: "list_files", arguments: "{}" },
        }],
      },
      { role: "tool", tool_call_id: "a", content: "errors.log" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "b",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"errors.log"}' },
        }],
      },
      { role: "tool", tool_call_id: "b", content: "worker 7 timed out" },
    ],
  });
  let text = "";
  let usage = 0;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? "";
    usage += chunk.usage?.completion_tokens ?? 0;
  }
  assert.equal(text, PLAN_ANSWER);
  assert.ok(usage > 0);
});

Deno.test("the official openai client reads the provider's paced stream chunk by chunk", async () => {
  const paced = new OpenAI({
    apiKey: "test",
    baseURL: "http://scripted.local/v1",
    fetch: scriptedFetch({ chunkMs: 1 }),
  });
  const task = "Which file mentions a timeout? Please answer in one sentence.";
  const stream = await paced.chat.completions.create({
    model: "echo",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: task }],
  });
  const pieces: string[] = [];
  let usage = 0;
  for await (const chunk of stream) {
    const d = chunk.choices[0]?.delta?.content;
    if (d) pieces.push(d);
    usage += chunk.usage?.completion_tokens ?? 0;
  }
  assert.equal(pieces.join(""), task);
  assert.ok(pieces.length >= 8, `${pieces.length} pieces`);
  assert.ok(usage > 0);
});

Deno.test("the AI SDK's streamText reads the provider's stream, text and usage", async () => {
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: "http://scripted.local/v1",
    fetch: scriptedFetch({ chunkMs: 1 }),
    includeUsage: true,
  });
  const task = "Which file mentions a timeout? Please answer in one sentence.";
  const result = streamText({ model: provider.chatModel("echo"), prompt: task });
  const pieces: string[] = [];
  for await (const piece of result.textStream) pieces.push(piece);
  assert.equal(pieces.join(""), task);
  assert.ok(pieces.length >= 8, `${pieces.length} pieces`);
  const usage = await result.usage;
  assert.ok((usage.inputTokens ?? 0) > 0 && (usage.outputTokens ?? 0) > 0, JSON.stringify(usage));
});
