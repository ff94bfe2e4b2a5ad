import assert from "node:assert/strict";
import { z } from "zod";
import { z as z3 } from "npm:zod@3.25.76";
import { type } from "npm:arktype@2.2.9";
import { newRun, type RunState } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import { memorySink, type OutputInvalidEvent, type TurnEvent } from "../harness/trace.ts";
import { addUsd } from "../harness/cost.ts";
import type { Model, ModelReply, ModelRequest } from "../harness/model.ts";
import { FINAL_ANSWER_TOOL } from "../harness/output_turn.ts";
import { REPAIR_PREFIX } from "../harness/output.ts";
import { RunStateError } from "../harness/errors.ts";
import { defineTool } from "../harness/tool.ts";
import { MemoryRunStore } from "../harness/run_store.ts";
import { describeChildStop } from "../subagents/agent_tool.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import {
  LOCATION_ANSWER,
  PROSE_ANSWER,
  TIMEOUT_LOCATION,
  WRONG_TYPE_ANSWER,
} from "../testing/scenarios.ts";
import { demoTools } from "../tools/catalog.ts";
import { createWorkspace } from "../tools/workspace.ts";

const location = z.object({ file: z.string(), line: z.number() });
const TASK = "Where is the timeout logged?";

/** A model that answers `replies` in turn (the last one again after), recording each request. */
function replying(replies: Array<string | ModelReply["message"]>, structured = true) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    name: "m",
    ...structured ? { structuredOutput: "json_schema" as const } : {},
    complete: (request) => {
      requests.push(structuredClone({ ...request, onText: undefined, onReset: undefined }));
      const r = replies[Math.min(requests.length - 1, replies.length - 1)];
      const message = typeof r === "string" ? { role: "assistant" as const, content: r } : r;
      return Promise.resolve({
        message,
        usage: { prompt_tokens: 100 + 10 * requests.length, completion_tokens: 20 },
        finishReason: message.tool_calls ? "tool_calls" : "stop",
      });
    },
  };
  return { model, requests };
}

function turnCosts(events: readonly { type: string }[]): number {
  return (events.filter((e) => e.type === "turn") as TurnEvent[])
    .reduce((sum, e) => addUsd(sum, e.turnCostUsd), 0);
}

Deno.test("done when: output passes the schema and is typed; the raw text stays in the transcript", async () => {
  const { model, requests } = replying([LOCATION_ANSWER]);
  const done = await run(newRun(TASK), { model, output: location });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  const line: number | undefined = done.output?.line; // typed as the schema's output
  assert.equal(line, 12);
  assert.ok(location.safeParse(done.output).success);
  assert.equal(done.messages.at(-1)?.content, LOCATION_ANSWER);
  assert.deepEqual(
    done.outputSchema,
    z.toJSONSchema(location, {}) && {
      type: "object",
      properties: { file: { type: "string" }, line: { type: "number" } },
      required: ["file", "line"],
      additionalProperties: false,
    },
  );
  // The model was asked for it, strict.
  assert.equal(requests[0].output?.name, "output");
  assert.equal(requests[0].output?.strict, true);
});

Deno.test("a plain-text JSON answer (fenced too) passes without a repair", async () => {
  const { model } = replying(["```json\n" + LOCATION_ANSWER + "\n```"], false);
  const done = await run(newRun(TASK), { model, output: location });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  assert.equal(done.turns, 1);
});

Deno.test("invalid JSON, then wrong types, then valid: two repair turns, each told what failed", async () => {
  const { sink, events } = memorySink();
  const done = await run(newRun(TASK), {
    model: scriptedModel("extract-twice"),
    output: TIMEOUT_LOCATION,
    trace: sink,
  });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  assert.equal(done.turns, 3);
  const invalid = events.filter((e) => e.type === "output_invalid") as OutputInvalidEvent[];
  assert.deepEqual(invalid.map((e) => e.repair), [1, 2]);
  assert.equal(invalid[0].issues[0].path, "(root)");
  assert.match(invalid[0].issues[0].message, /^not JSON/);
  assert.deepEqual(invalid[1].issues.map((i) => i.path), ["line"]);
  // The repair prompts are in the transcript, where `outputRepairs` points.
  assert.deepEqual(done.outputRepairs, [2, 4]);
  const repair = done.messages[4];
  assert.equal(repair.role, "user");
  assert.ok(repair.content?.startsWith(REPAIR_PREFIX));
  assert.match(repair.content ?? "", /- at line: .*expected number, received string/);
  assert.equal(done.messages[1].content, PROSE_ANSWER);
  assert.equal(done.messages[3].content, WRONG_TYPE_ANSWER);
  assert.equal(done.costUsd, turnCosts(events));
});

Deno.test("done when: a model that never complies fails invalid_output, costUsd the sum of every turn", async () => {
  const { sink, events } = memorySink();
  const done = await run(newRun(TASK), {
    model: scriptedModel("extract-never"),
    output: TIMEOUT_LOCATION,
    trace: sink,
  });
  assert.equal(done.status, "failed");
  assert.equal(done.turns, 3); // the answer and the default 2 repairs
  assert.deepEqual(done.failure, {
    kind: "invalid_output",
    raw: WRONG_TYPE_ANSWER,
    issues: [{ path: "line", message: "Invalid input: expected number, received string" }],
  });
  assert.equal(done.output, null);
  assert.match(done.stopReason ?? "", /after 2 repairs/);
  assert.equal(done.costUsd, turnCosts(events));
  assert.ok(done.costUsd > 0);
  const stopped = events.at(-1);
  assert.equal(stopped?.type, "run_stopped");
  assert.deepEqual(
    (events.filter((e) => e.type === "output_invalid") as OutputInvalidEvent[]).map((e) =>
      e.repair
    ),
    [1, 2, null],
  );
  // The whole transcript is kept: task, three answers, two repairs.
  assert.equal(done.messages.length, 6);
});

Deno.test("maxOutputRepairs: 0 fails at the first invalid answer", async () => {
  const done = await run(newRun(TASK), {
    model: scriptedModel("extract-never"),
    output: TIMEOUT_LOCATION,
    maxOutputRepairs: 0,
  });
  assert.equal(done.status, "failed");
  assert.equal(done.turns, 1);
  assert.equal(done.failure?.kind, "invalid_output");
  await assert.rejects(
    () =>
      run(newRun(TASK), { model: scriptedModel("echo"), output: location, maxOutputRepairs: -1 }),
    RangeError,
  );
});

Deno.test("done when: maxTurns 2 with a model needing 2 repairs stops at the turn cap, transcript and cost intact", async () => {
  const { sink, events } = memorySink();
  const stopped = await run(newRun(TASK), {
    model: scriptedModel("extract-twice"),
    output: TIMEOUT_LOCATION,
    limits: { maxTurns: 2 },
    trace: sink,
  });
  assert.equal(stopped.status, "max_turns_exceeded");
  assert.equal(stopped.turns, 2);
  assert.equal(stopped.output, null);
  assert.equal(stopped.costUsd, turnCosts(events));
  // Task, prose, repair 1, wrong type, repair 2: the second repair waits for a turn.
  assert.deepEqual(stopped.messages.map((m) => m.role), [
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
  ]);
  assert.deepEqual(stopped.outputRepairs, [2, 4]);
  // Resumed with a higher cap, the repair is answered and counted.
  const done = await run(stopped, {
    model: scriptedModel("extract-twice"),
    output: TIMEOUT_LOCATION,
    limits: { maxTurns: 5 },
  });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  assert.equal(done.turns, 3);
});

Deno.test("tools stay usable: extract reads errors.log, then repairs its answer", async () => {
  const ws = await createWorkspace();
  try {
    const done = await run(newRun(TASK), {
      model: scriptedModel("extract"),
      tools: demoTools(ws),
      output: TIMEOUT_LOCATION,
    });
    assert.equal(done.status, "completed");
    assert.equal(done.toolRuns, 1);
    assert.deepEqual(done.output, { file: "errors.log", line: 12 });
    assert.equal(done.turns, 3);
    assert.deepEqual(done.outputRepairs, [4]);
  } finally {
    await ws.remove();
  }
});

Deno.test("fallback: a model without json_schema support answers through the final_answer tool", async () => {
  const call = (args: string, id: string) => ({
    role: "assistant" as const,
    content: null,
    tool_calls: [{
      id,
      type: "function" as const,
      function: { name: FINAL_ANSWER_TOOL, arguments: args },
    }],
  });
  const { model, requests } = replying(
    [call(WRONG_TYPE_ANSWER, "a1"), call(LOCATION_ANSWER, "a2")],
    false,
  );
  const done = await run(newRun(TASK), { model, output: location });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  // The model was offered the tool (no response_format), and the repair answered its call.
  assert.equal(requests[0].output, undefined);
  const tool = requests[0].tools.find((t) => t.function.name === FINAL_ANSWER_TOOL);
  assert.deepEqual(tool?.function.parameters, requests[1].tools[0].function.parameters);
  const repair = done.messages[2];
  assert.equal(repair.role, "tool");
  assert.ok(repair.role === "tool" && repair.tool_call_id === "a1");
  assert.match(repair.content ?? "", /- at line:/);
  // Every call has its result: the accepted one too.
  assert.deepEqual(done.messages.at(-1), {
    role: "tool",
    tool_call_id: "a2",
    name: FINAL_ANSWER_TOOL,
    content: "Accepted.",
  });
  await assert.rejects(
    () =>
      run(newRun(TASK), {
        model,
        output: location,
        tools: [defineTool({
          name: FINAL_ANSWER_TOOL,
          description: "clashes",
          parameters: z.object({}),
          run: () => "",
        })],
      }),
    TypeError,
  );
});

Deno.test("two final_answer calls in one reply: the last is the answer, the first is said to be unjudged", async () => {
  const fn = (args: string, id: string) => ({
    id,
    type: "function" as const,
    function: { name: FINAL_ANSWER_TOOL, arguments: args },
  });
  const { model } = replying([{
    role: "assistant",
    content: null,
    tool_calls: [fn(WRONG_TYPE_ANSWER, "a1"), fn(LOCATION_ANSWER, "a2")],
  }], false);
  const done = await run(newRun(TASK), { model, output: location });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  // Before: the invalid first call's result also read "Accepted.".
  const results = done.messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.deepEqual(results, [
    "Not judged: a later final_answer call in this reply is the answer.",
    "Accepted.",
  ]);
});

Deno.test("a non-object schema is wrapped as { value } for the model; both forms pass", async () => {
  const { model, requests } = replying(['{"value":["a","b"]}']);
  const done = await run(newRun(TASK), { model, output: z.array(z.string()) });
  assert.deepEqual(done.output, ["a", "b"]);
  assert.deepEqual(requests[0].output?.schema.required, ["value"]);
  const bare = await run(newRun(TASK), {
    model: replying(['["c"]']).model,
    output: z.array(z.string()),
  });
  assert.deepEqual(bare.output, ["c"]);
});

Deno.test("a schema JSON Schema cannot express is refused up front", async () => {
  await assert.rejects(
    () => run(newRun(TASK), { model: scriptedModel("echo"), output: z.date() }),
    /cannot be expressed as JSON Schema/,
  );
});

Deno.test("a typed run resumed without its schema is validated by the stored JSON Schema; a schema given validates instead", async () => {
  const stopped = await run(newRun(TASK), {
    model: scriptedModel("extract-twice"),
    output: TIMEOUT_LOCATION,
    limits: { maxTurns: 1 },
  });
  assert.equal(stopped.status, "max_turns_exceeded");
  const copy: RunState = JSON.parse(JSON.stringify(stopped));
  // Another process that does not know the schema: the stored one still holds.
  const { sink, events } = memorySink();
  const bare = await run(copy, {
    model: scriptedModel("extract-twice"),
    limits: { maxTurns: 5 },
    trace: sink,
  });
  assert.equal(bare.status, "completed");
  assert.deepEqual(bare.output, { file: "errors.log", line: 12 });
  const invalid = events.filter((e) => e.type === "output_invalid") as OutputInvalidEvent[];
  assert.deepEqual(invalid.map((e) => e.issues[0].path), ["line"]);
  // A looser schema given on resume accepts the wrong-type answer.
  const loose = z.object({ file: z.string(), line: z.union([z.number(), z.string()]) });
  const done = await run(copy, {
    model: scriptedModel("extract-twice"),
    output: loose,
    limits: { maxTurns: 5 },
  });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: "12" });
  // A stored schema that cannot be rebuilt is refused, before anything runs.
  const broken = {
    ...copy,
    outputSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
  };
  await assert.rejects(() => run(broken, { model: scriptedModel("echo") }), RunStateError);
});

Deno.test("a stopWhen that would complete during a repair fails invalid_output instead", async () => {
  const done = await run(newRun(TASK), {
    model: scriptedModel("extract-never"),
    output: TIMEOUT_LOCATION,
    stopWhen: [(s) => s.turns >= 1],
  });
  assert.equal(done.status, "failed");
  assert.equal(done.failure?.kind, "invalid_output");
  assert.deepEqual(done.failure?.issues.map((i) => i.path), ["line"]);
});

Deno.test("invalid_output's raw answer is the final_answer call that was judged: the last", async () => {
  const fn = (args: string, id: string) => ({
    id,
    type: "function" as const,
    function: { name: FINAL_ANSWER_TOOL, arguments: args },
  });
  const bad = JSON.stringify({ file: "errors.log", line: "x" });
  const replies = [
    [fn(LOCATION_ANSWER, "a1"), fn(bad, "a2")], // the last is judged, and fails
    [fn(bad, "b1")], // one call: its arguments, not the reply's null content
  ];
  for (const calls of replies) {
    const { model } = replying([{ role: "assistant", content: null, tool_calls: calls }], false);
    const done = await run(newRun(TASK), {
      model,
      output: location,
      stopWhen: [(s) => s.turns >= 1],
    });
    assert.equal(done.failure?.kind, "invalid_output");
    // Before: the first call's (valid) arguments, or "" for a single call.
    assert.equal(done.failure?.raw, bad, JSON.stringify(calls.map((c) => c.id)));
    assert.deepEqual(done.failure?.issues.map((i) => i.path), ["line"]);
  }
});

Deno.test("hard budget: a repair is started only when the budget can pay for it", async () => {
  const long = JSON.stringify({ file: "errors.log", line: "x".repeat(4000) });
  const { model, requests } = replying([long]);
  const done = await run(newRun(TASK), {
    model,
    output: location,
    budgetMode: "hard",
    limits: { maxBudgetUsd: 0.005 },
    prices: { inputPerMillion: 2, outputPerMillion: 12 },
  });
  assert.equal(requests.length, 1);
  assert.equal(done.status, "budget_exceeded");
  assert.match(done.stopReason ?? "", /a repair of the output would cost about/);
  assert.equal(done.outputRepairs, undefined);
});

Deno.test("a child run does not inherit the parent's output schema; a typed child's value reaches the parent as JSON", async () => {
  const store = new MemoryRunStore();
  const asked: string[] = [];
  const child = (output?: typeof location) =>
    defineTool({
      name: "ask",
      description: "asks a child",
      parameters: z.object({}),
      run: async (_args, ctx) => {
        const kid = newRun("child task", {
          parent: { runId: ctx.runId, rootId: ctx.rootId ?? ctx.runId, callId: ctx.callId },
        });
        const done = await ctx.runChild(kid, {
          tools: [],
          model: replying([LOCATION_ANSWER]).model,
          output,
        });
        asked.push(JSON.stringify(done.outputSchema ?? null));
        return `${done.status}: ${describeChildStop("child", done)}`;
      },
    });
  for (const output of [undefined, location]) {
    const { model } = replying([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "ask", arguments: "{}" } }],
      },
      LOCATION_ANSWER,
    ]);
    const done = await run(newRun(TASK), {
      model,
      tools: [child(output)],
      output: z.object({ file: z.string(), line: z.number() }),
      store,
    });
    assert.equal(done.status, "completed");
    const result = done.messages.find((m) => m.role === "tool");
    assert.equal(
      result?.content,
      `completed: ${output ? '{"file":"errors.log","line":12}' : LOCATION_ANSWER}`,
    );
  }
  assert.equal(asked[0], "null");
  assert.notEqual(asked[1], "null");
});

Deno.test("output takes any Standard JSON Schema (arktype) like tool parameters; zod 3 is a TypeError", async () => {
  const { model, requests } = replying([WRONG_TYPE_ANSWER, LOCATION_ANSWER]);
  const done = await run(newRun(TASK), {
    model,
    output: type({ file: "string", line: "number" }),
  });
  assert.equal(done.status, "completed");
  assert.deepEqual(done.output, { file: "errors.log", line: 12 });
  assert.equal(done.outputRepairs?.length, 1);
  assert.match(done.messages[2].content ?? "", /- at line: /);
  assert.deepEqual(requests[0].output?.schema.required, ["file", "line"]);
  await assert.rejects(
    () => run(newRun(TASK), { model, output: z3.object({ file: z3.string() }) as never }),
    (e: unknown) => e instanceof TypeError && /zod 3/.test(e.message),
  );
});
