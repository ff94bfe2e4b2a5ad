import assert from "node:assert/strict";
import { z } from "zod";
import { z as z3 } from "npm:zod@3.25.76";
import { type } from "npm:arktype@2.2.9";
import { defineTool } from "../harness/tool.ts";
import { adaptSchema } from "../harness/schema_adapter.ts";
import { newRun } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import type { Model } from "../harness/model.ts";

Deno.test("defineTool: a zod 3 schema is a TypeError that names zod 3, not a crash mid-run", () => {
  assert.throws(
    () =>
      defineTool({
        name: "lookup",
        description: "Looks up an order.",
        // deno-lint-ignore no-explicit-any
        parameters: z3.object({ id: z3.string() }) as any,
        run: () => "x",
      }),
    (e: unknown) =>
      e instanceof TypeError && e.message.startsWith("defineTool(lookup): a zod 3 schema"),
  );
});

Deno.test("defineTool: an arktype schema (Standard JSON Schema) gives its JSON Schema and checks", async () => {
  const seen: unknown[] = [];
  const tool = defineTool({
    name: "lookup_order",
    description: "Looks up an order.",
    parameters: type({ id: "string" }),
    readOnly: true,
    run: (args) => {
      seen.push(args);
      return `order ${args.id}: shipped`;
    },
  });
  assert.deepEqual(tool.jsonSchema.type, "object");
  assert.deepEqual(tool.jsonSchema.required, ["id"]);
  assert.deepEqual("$schema" in tool.jsonSchema, false);
  const bad = tool.parameters.safeParse({ id: 42 });
  assert.deepEqual(bad.success, false);
  if (!bad.success) assert.deepEqual(bad.error.issues[0].path, ["id"]);

  // Through the loop: a bad call is an error the model sees, a good one runs.
  let turn = 0;
  const model: Model = {
    name: "m",
    complete: () => {
      turn++;
      const reply = turn === 1
        ? { content: null, tool_calls: [call("c1", { id: 42 }), call("c2", { id: "42" })] }
        : { content: "Shipped." };
      return Promise.resolve({
        message: { role: "assistant" as const, ...reply },
        usage: { prompt_tokens: 10, completion_tokens: 2 },
        finishReason: turn === 1 ? "tool_calls" : "stop",
      });
    },
  };
  const result = await run(newRun("Where is order 42?"), {
    model,
    tools: [tool],
    limits: { maxTurns: 4, maxBudgetUsd: 1 },
  });
  assert.deepEqual(result.status, "completed");
  assert.deepEqual(seen, [{ id: "42" }]);
  const toolTexts = result.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  assert.deepEqual(toolTexts.length, 2);
  assert.match(toolTexts[0], /id/);
  assert.deepEqual(toolTexts[1], "order 42: shipped");
});

Deno.test("defineTool: zod 4 keeps working, a thing that is no schema is a TypeError", () => {
  const tool = defineTool({
    name: "t",
    description: "d",
    parameters: z.object({ n: z.number() }),
    run: ({ n }) => n + 1,
  });
  assert.deepEqual(tool.parameters.safeParse({ n: 1 }).success, true);
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => defineTool({ name: "t", description: "d", parameters: {} as any, run: () => 1 }),
    TypeError,
  );
});

function call(id: string, args: unknown) {
  return {
    id,
    type: "function" as const,
    function: { name: "lookup_order", arguments: JSON.stringify(args) },
  };
}

Deno.test("a schema is converted once: tools built per run share its JSON Schema", () => {
  const schema = z.object({ path: z.string() });
  const a = adaptSchema(schema, "a");
  const b = adaptSchema(schema, "b");
  assert.equal(a.jsonSchema, b.jsonSchema);
  assert.notEqual(adaptSchema(z.object({ path: z.string() }), "c").jsonSchema, a.jsonSchema);
  // Still the schema's own check.
  assert.equal(b.check.safeParse({ path: 1 }).success, false);
});

Deno.test("a tool defined again from a defined tool keeps its schema (zod and arktype)", () => {
  for (const parameters of [z.object({ id: z.string() }), type({ id: "string" })]) {
    const tool = defineTool({
      name: "lookup",
      description: "Looks up.",
      parameters,
      run: () => "x",
    });
    const again = defineTool({ ...tool, description: "Finds an order." });
    assert.deepEqual(again.jsonSchema, tool.jsonSchema);
    assert.equal(again.jsonSchema.type, "object");
    assert.equal(again.parameters.safeParse({ id: 42 }).success, false);
    assert.equal(again.parameters.safeParse({ id: "42" }).success, true);
  }
});

Deno.test("a zod tool's arguments are checked without compiling a parser, with zod's issues", () => {
  const tool = defineTool({
    name: "lookup",
    description: "Looks up.",
    parameters: z.object({ id: z.string().min(2) }),
    run: () => "x",
  });
  // zod compiles its fast path with the Function constructor: count its uses.
  const compiled = compilations(() => {
    const bad = tool.parameters.safeParse({ id: "1" });
    assert.equal(bad.success, false);
    if (!bad.success) assert.deepEqual(bad.error.issues[0].path, ["id"]);
    const good = tool.parameters.safeParse({ id: "12", extra: true });
    assert.deepEqual(good, { success: true, data: { id: "12" } });
  });
  assert.equal(compiled, 0);
  // The count works: zod's own safeParse of a fresh schema compiles one.
  assert.equal(compilations(() => z.object({ id: z.string() }).safeParse({ id: "1" })), 1);
});

/** How many functions `fn` built with the global `Function` constructor. */
function compilations(fn: () => void): number {
  const original = globalThis.Function;
  let count = 0;
  globalThis.Function = new Proxy(original, {
    construct(target, args) {
      count++;
      return Reflect.construct(target, args);
    },
  });
  try {
    fn();
  } finally {
    globalThis.Function = original;
  }
  return count;
}
