// A run's state is copied by hand (harness/clone_data.ts), not by
// structuredClone, whose first use costs a fresh process about 0.2 MB: the
// copy must equal structuredClone's for every state a run makes, and refuse,
// as structuredClone does, what is not data, with the path to it.
import assert from "node:assert/strict";
import { cloneData } from "../harness/clone_data.ts";
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
  assert.throws(() => cloneData(cycle), /nested deeper than 256 \(a cycle\?\)/);
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
