import assert from "node:assert/strict";
import { newRun } from "../../harness/state.ts";
import { approve, reject } from "../../harness/verdict.ts";
import { run } from "../../harness/run.ts";
import type { Model, ModelRequest } from "../../harness/model.ts";
import type { ChatMessage, ToolCall } from "../../harness/messages.ts";
import { createOpenAIModel } from "../../openai/openai_model.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { defineTool } from "../../harness/tool.ts";
import { researchTool } from "../../subagents/research.ts";
import { z } from "zod";
import { runUniqueIds, toWire } from "../../harness/call_ids.ts";

/** A tool that needs approval and records what ran. */
function deleteTool(ran: string[]) {
  return defineTool({
    name: "delete_file",
    description: "Deletes a file.",
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    run: ({ path }) => (ran.push(path), `deleted ${path}`),
  });
}

const call = (id: string | undefined, name: string, args: unknown) =>
  ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } }) as ToolCall;

/** Asks for one call per turn from `script`, always with the same id (or none), then answers. */
function reusingModel(script: [string, unknown][], id: string | undefined): Model {
  return {
    name: "reuse",
    complete: (req: ModelRequest) => {
      const turn = req.messages.filter((m) => m.role === "assistant").length;
      const step = script[turn];
      return Promise.resolve({
        message: step
          ? { role: "assistant", content: null, tool_calls: [call(id, step[0], step[1])] }
          : { role: "assistant", content: "done" },
        usage: { prompt_tokens: 10, completion_tokens: 5 },
        finishReason: step ? "tool_calls" : "stop",
      });
    },
  };
}

Deno.test("a provider reusing call_0 every turn: a rejection does not block later verdicts", async () => {
  const ran: string[] = [];
  const model = reusingModel([["delete_file", { path: "a.log" }], ["delete_file", {
    path: "b.log",
  }]], "call_0");
  const tools = [deleteTool(ran)];
  let s = await run(newRun("clean up"), { model, tools });
  assert.equal(s.interruption?.type, "approval");
  const first = s.interruption?.type === "approval" ? s.interruption.callId : "";
  s = await run(reject(s, first, "keep it"), { model, tools });
  assert.equal(s.status, "interrupted", s.stopReason ?? "");
  const second = s.interruption?.type === "approval" ? s.interruption.callId : "";
  assert.notEqual(second, first, "the second call_0 has an id of its own");
  s = await run(approve(s, second), { model, tools });
  assert.equal(s.status, "completed", s.stopReason ?? "");
  assert.deepEqual(ran, ["b.log"]);
});

Deno.test("a tool call with no id gets one instead of failing the run", async () => {
  const ran: string[] = [];
  const tools = [
    defineTool({
      name: "note",
      description: "n",
      parameters: z.object({ path: z.string() }),
      readOnly: true,
      run: ({ path }) => (ran.push(path), "ok"),
    }),
  ];
  // Through the real client: the endpoint omits the id.
  const model = createOpenAIModel({
    baseUrl: "http://fake.local/v1",
    model: "m",
    fetch: wireFake([["note", { path: "x" }], ["note", { path: "y" }]], undefined).fetch,
  });
  const s = await run(newRun("go"), { model, tools });
  assert.equal(s.status, "completed", s.stopReason ?? "");
  assert.deepEqual(ran, ["x", "y"]);
});

/** A chat-completions endpoint that reuses one id (or none) and records the requests. */
function wireFake(script: [string, unknown][], id: string | undefined) {
  const bodies: { messages: Record<string, unknown>[] }[] = [];
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body));
    bodies.push(body);
    const turn = body.messages.filter((m: ChatMessage) => m.role === "assistant").length;
    const step = script[turn];
    const message = step
      ? { role: "assistant", content: null, tool_calls: [call(id, step[0], step[1])] }
      : { role: "assistant", content: "done" };
    return Promise.resolve(
      new Response(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          model: "m",
          choices: [{ index: 0, message, finish_reason: step ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
        { headers: { "content-type": "application/json" } },
      ),
    );
  };
  return { fetch: fetch as typeof globalThis.fetch, bodies };
}

Deno.test("what goes back to the provider is self-consistent and keeps its ids", async () => {
  const tools = [
    defineTool({
      name: "note",
      description: "n",
      parameters: z.object({ path: z.string() }),
      readOnly: true,
      run: ({ path }) => `noted ${path}`,
    }),
  ];
  const fake = wireFake([["note", { path: "x" }], ["note", { path: "y" }]], "call_0");
  const model = createOpenAIModel({
    baseUrl: "http://fake.local/v1",
    model: "m",
    fetch: fake.fetch,
  });
  const s = await run(newRun("go"), { model, tools });
  assert.equal(s.status, "completed", s.stopReason ?? "");
  const ids = s.messages.flatMap((m) => m.role === "assistant" ? m.tool_calls ?? [] : [])
    .map((c) => c.id);
  assert.equal(new Set(ids).size, 2, `reins ids are unique in the run: ${ids}`);
  const last = fake.bodies.at(-1)!.messages;
  for (let i = 0; i < last.length; i++) {
    const m = last[i] as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string };
    assert.ok(!("wireId" in (m.tool_calls?.[0] ?? {})), "no reins-only fields on the wire");
    if (m.role === "tool") {
      const asked = last[i - 1] as { tool_calls: { id: string }[] };
      assert.equal(m.tool_call_id, asked.tool_calls[0].id, "a result answers its call's wire id");
      assert.equal(m.tool_call_id, "call_0", "the provider's own id goes back to it");
    }
  }
});

Deno.test("two research calls reusing an id get their own answers", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const model: Model = {
      name: "m",
      complete: (req) => {
        const task = req.messages.find((m) => m.role === "user")!.content as string;
        const turn = req.messages.filter((m) => m.role === "assistant").length;
        const questions = ["What is A?", "What is B?"];
        const message = task === "root" && turn < 2
          ? {
            role: "assistant" as const,
            content: null,
            tool_calls: [call("call_0", "research", { question: questions[turn] })],
          }
          : { role: "assistant" as const, content: `answer to ${task}` };
        return Promise.resolve({
          message,
          usage: { prompt_tokens: 10, completion_tokens: 5 },
          finishReason: "stop",
        });
      },
    };
    const root = newRun("root");
    await store.save(root);
    const s = await run(root, {
      model,
      store,
      tools: [researchTool({ tools: [] })],
    });
    assert.equal(s.status, "completed", s.stopReason ?? "");
    const results = s.messages.filter((m) => m.role === "tool").map((m) => m.content);
    assert.equal(results.length, 2);
    assert.match(results[0], /What is A\?/);
    assert.match(results[1], /What is B\?/, `the second question got: ${results[1]}`);
  } finally {
    kv.close();
  }
});

Deno.test("a call id with unsafe characters, or a long one, is renamed; the wire keeps it", () => {
  // Before: a child run was stored as `<parent>.../../x y/é\0` (its URL then a 400), and a
  // 3,000-character id failed its tool with "Key too large for read".
  const odd = "../../x y/é\0", long = "c".repeat(3000);
  const calls = runUniqueIds(
    [
      { id: odd, type: "function", function: { name: "f", arguments: "{}" } },
      { id: long, type: "function", function: { name: "f", arguments: "{}" } },
      { id: "call_ok-1:2", type: "function", function: { name: "f", arguments: "{}" } },
    ],
    [],
    3,
  );
  assert.deepEqual(calls.map((c) => [c.id, c.wireId]), [
    ["call_3_0", odd],
    ["call_3_1", long],
    ["call_ok-1:2", undefined],
  ]);
  const wire = toWire([
    { role: "assistant", content: null, tool_calls: calls },
    { role: "tool", tool_call_id: "call_3_0", name: "f", content: "ok" },
  ]);
  assert.equal(wire[1]!.role === "tool" && wire[1]!.tool_call_id, odd);
});

Deno.test("one unsafe id twice in a reply: the wire gets it once, the second its new id", () => {
  const calls = runUniqueIds(
    [
      { id: "a b", type: "function", function: { name: "f", arguments: "{}" } },
      { id: "a b", type: "function", function: { name: "f", arguments: "{}" } },
    ],
    [],
    1,
  );
  assert.deepEqual(calls.map((c) => [c.id, c.wireId]), [["call_1_0", "a b"], [
    "call_1_1",
    undefined,
  ]]);
});
