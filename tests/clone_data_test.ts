// A run's state is copied by hand (harness/clone_data.ts), not by
// structuredClone, whose first use costs a fresh process about 0.2 MB: the
// copy must equal structuredClone's for every state a run makes, and refuse,
// as structuredClone does, what is not data, with the path to it.
import assert from "node:assert/strict";
import { z } from "zod";
import { cloneData } from "../harness/clone_data.ts";
import type { Model } from "../harness/model.ts";
import { defineTool } from "../harness/tool.ts";
import { approve } from "../harness/verdict.ts";
import { run } from "../harness/run.ts";
import { newRun } from "../harness/state.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { demoTools } from "../tools/catalog.ts";
import { createWorkspace } from "../tools/workspace.ts";

Deno.test("a run's state copies as structuredClone copies it, and apart from it", async () => {
  const ws = await createWorkspace();
  try {
    const done = await run(newRun("Which file mentions a timeout?", { system: "Be brief." }), {
      model: scriptedModel("plan"),
      tools: demoTools(ws),
    });
    assert.equal(done.status, "completed", done.stopReason ?? "");
    const copy = cloneData(done);
    assert.deepStrictEqual(copy, structuredClone(done));
    copy.messages[1]!.content = "changed";
    copy.usage.prompt_tokens += 1;
    assert.notEqual(done.messages[1]!.content, "changed");
    assert.notEqual(done.usage.prompt_tokens, copy.usage.prompt_tokens);
  } finally {
    await ws.remove();
  }
});

Deno.test("what is not data is refused with a TypeError naming where it is", () => {
  const cases: [unknown, RegExp][] = [
    [{ a: { f: () => 1 } }, /^Cannot copy a\.f: a function, not data$/],
    [{ list: [1, new Map()] }, /^Cannot copy list\[1\]: a Map, not data$/],
    [{ at: new Date(0) }, /^Cannot copy at: a Date, not data$/],
    [{ n: 1n }, /^Cannot copy n: a bigint, not data$/],
    [Symbol("s"), /^Cannot copy the value: a symbol, not data$/],
  ];
  for (const [value, message] of cases) {
    assert.throws(
      () => cloneData(value),
      (e: unknown) => e instanceof TypeError && message.test(e.message),
    );
  }
  const cycle: Record<string, unknown> = {};
  cycle["self"] = cycle;
  assert.throws(() => cloneData(cycle), /^TypeError: Cannot copy self: a cycle, not data$/);
  // The same object twice, side by side, is no cycle: copied twice.
  const twice = { a: { x: 1 }, b: null as unknown };
  twice.b = twice.a;
  assert.deepStrictEqual(cloneData(twice), { a: { x: 1 }, b: { x: 1 } });
  // undefined and null are data (a state's optional fields), kept as they are.
  assert.deepStrictEqual(cloneData({ a: undefined, b: null, c: [undefined] }), {
    a: undefined,
    b: null,
    c: [undefined],
  });
});

Deno.test("run() refuses a state that is not data before any call", async () => {
  const state = newRun("hi");
  (state as unknown as Record<string, unknown>)["extra"] = { hook: () => {} };
  let called = false;
  const model = scriptedModel("plan");
  await assert.rejects(
    run(state, {
      model: { ...model, complete: (r, s) => (called = true, model.complete(r, s)) },
    }),
    TypeError,
  );
  assert.equal(called, false);
});

Deno.test("data a model sent is copied however deep it nests, its keys as keys", () => {
  // A tool call's arguments (an approval's `args`) nest as deep as the model writes them.
  // Deeper than structuredClone copies (it gives up at about 10,000 levels).
  const text = "[".repeat(20_000) + '{"a":[1]}' + "]".repeat(20_000);
  const deep = JSON.parse(text);
  const copied = cloneData(deep);
  assert.equal(JSON.stringify(copied), text);
  assert.notEqual(copied, deep);
  const keyed = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}');
  const copy = cloneData(keyed);
  assert.deepStrictEqual(Object.keys(copy), ["__proto__", "constructor"]);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  // Only own keys: what a polluted prototype adds is not copied into the data.
  Object.defineProperty(Object.prototype, "extra", {
    value: 1,
    enumerable: true,
    configurable: true,
  });
  try {
    assert.deepStrictEqual(Object.keys(cloneData({ a: 1 })), ["a"]);
  } finally {
    delete (Object.prototype as Record<string, unknown>)["extra"];
  }
});

Deno.test("a run stopped for approval of deeply nested arguments can be approved", async () => {
  // The model decides how deep a call's arguments nest; the approval's `args` hold them parsed.
  const args = JSON.stringify({ v: JSON.parse("[".repeat(300) + "]".repeat(300)) });
  let calls = 0;
  const model: Model = {
    name: "nesting",
    complete: () => {
      const message = calls++ === 0
        ? {
          role: "assistant" as const,
          content: null,
          tool_calls: [{
            id: "c1",
            type: "function" as const,
            function: { name: "stash", arguments: args },
          }],
        }
        : { role: "assistant" as const, content: "done" };
      return Promise.resolve({
        message,
        usage: { prompt_tokens: 5, completion_tokens: 5 },
        finishReason: "stop",
      });
    },
  };
  const stash = defineTool({
    name: "stash",
    description: "Keeps a value.",
    parameters: z.object({ v: z.unknown() }),
    needsApproval: true,
    run: () => "kept",
  });
  const stopped = await run(newRun("Keep this."), { model, tools: [stash] });
  assert.equal(stopped.interruption?.type, "approval");
  const done = await run(approve(stopped, "c1"), { model, tools: [stash] });
  assert.equal(done.status, "completed", done.stopReason ?? "");
  assert.equal(done.output, "done");
});

Deno.test("a copied state keeps V8's fast properties and packed arrays; symbol keys are not copied", async () => {
  // Set key by key, an object of more than a dozen keys becomes a dictionary in V8,
  // and the loop reads the state all run long. Seen only with a V8 flag: a process of its own.
  const code = `
    import { cloneData } from "${new URL("../harness/clone_data.ts", import.meta.url)}";
    import { newRun } from "${new URL("../harness/state.ts", import.meta.url)}";
    const fast = new Function("o", "return %HasFastProperties(o)");
    const holey = new Function("a", "return %HasHoleyElements(a)");
    const state = newRun("task", { model: "m" });
    const copy = cloneData(state);
    console.log(Object.keys(state).length, fast(state), fast(copy), holey(copy.messages));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--allow-natives-syntax", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const [keys, original, copy, holey] = text.split(" ");
  assert.ok(Number(keys) > 12, `a state has ${keys} keys: too few to tell`);
  assert.deepStrictEqual([original, copy, holey], ["true", "true", "false"]);
  const copied = cloneData({ a: { b: 1 }, [Symbol("s")]: 2 });
  assert.deepStrictEqual(Object.getOwnPropertySymbols(copied), []);
  assert.deepStrictEqual(copied, { a: { b: 1 } });
});
