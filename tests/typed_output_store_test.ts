// Typed results stored and resumed: the JSON Schema, the value, the repair
// prompts and the failure survive KV; a run resumed in another process (the
// CLI) validates with the schema given to run() again.
import assert from "node:assert/strict";
import { z } from "zod";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { newRun } from "../harness/state.ts";
import { run } from "../harness/run.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { TIMEOUT_LOCATION } from "../testing/scenarios.ts";
import { lastJson, runScript } from "./run_script.ts";

const TASK = "Where is the timeout logged?";

Deno.test("a typed run stored in KV: schema, repairs and value load back; resumed from the store it validates again", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const stopped = await run(newRun(TASK), {
      model: scriptedModel("extract-twice"),
      output: TIMEOUT_LOCATION,
      limits: { maxTurns: 2 },
      store,
    });
    assert.equal(stopped.status, "max_turns_exceeded");
    const loaded = await new KvRunStore(kv).load(stopped.runId);
    assert.deepEqual(loaded.outputSchema, stopped.outputSchema);
    assert.equal((loaded.outputSchema as { type: string }).type, "object");
    assert.deepEqual(loaded.outputRepairs, [2, 4]);
    assert.equal(loaded.costUsd, stopped.costUsd);
    const done = await run(loaded, {
      model: scriptedModel("extract-twice"),
      output: TIMEOUT_LOCATION,
      limits: { maxTurns: 4 },
      store,
    });
    assert.equal(done.status, "completed");
    const again = await store.load(done.runId);
    assert.deepEqual(again.output, { file: "errors.log", line: 12 });
    assert.deepEqual((await store.summary(done.runId)).output, { file: "errors.log", line: 12 });
  } finally {
    kv.close();
  }
});

Deno.test("a failed typed run stores its failure: kind, raw answer and issues", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const done = await run(newRun(TASK), {
      model: scriptedModel("extract-never"),
      output: TIMEOUT_LOCATION,
      store,
    });
    const loaded = await store.load(done.runId);
    assert.equal(loaded.status, "failed");
    assert.deepEqual(loaded.failure, done.failure);
    assert.equal(loaded.failure?.kind, "invalid_output");
    assert.equal(loaded.costUsd, done.costUsd);
  } finally {
    kv.close();
  }
});

Deno.test("a large typed value is stored whole beside a preview header", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const items = Array.from({ length: 3000 }, (_, i) => `item number ${i} of the long list`);
    const model = {
      name: "m",
      structuredOutput: "json_schema" as const,
      complete: () =>
        Promise.resolve({
          message: { role: "assistant" as const, content: JSON.stringify({ items }) },
          usage: { prompt_tokens: 10, completion_tokens: 10 },
          finishReason: "stop",
        }),
    };
    const done = await run(newRun(TASK), {
      model,
      output: z.object({ items: z.array(z.string()) }),
      store,
    });
    assert.equal(done.status, "completed");
    const loaded = await store.load(done.runId);
    assert.deepEqual(loaded.output, { items });
    // The summary (read from the preview) carries a cut JSON text, not the whole value.
    const summary = await store.summary(done.runId);
    assert.equal(typeof summary.output, "string");
    assert.match(summary.output as string, /characters cut\]$/);
  } finally {
    kv.close();
  }
});

Deno.test("resumed by another process (the CLI), a typed scenario is validated with its schema again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reins-typed-" });
  try {
    const kv = ["--kv", `${dir}/runs.sqlite`];
    const first = await runScript(
      "demo/cli.ts",
      ["--scenario", "extract-twice", "--max-turns", "2", "--json", ...kv],
      { cwd: dir },
    );
    const stopped = lastJson(first.stdout);
    assert.equal(stopped.status, "max_turns_exceeded", first.stdout);
    assert.equal(stopped.output, null);
    const resumed = await runScript(
      "demo/cli.ts",
      ["--resume", stopped.runId, "--max-turns", "5", "--json", ...kv],
      { cwd: dir },
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    const s = lastJson(resumed.stdout);
    assert.equal(s.status, "completed");
    assert.deepEqual(s.output, { file: "errors.log", line: 12 });
    assert.equal(s.turns, 3);
    // Without --json the value is printed, formatted.
    const shown = await runScript("demo/cli.ts", ["--scenario", "extract", ...kv], { cwd: dir });
    assert.match(shown.stdout, /^ {2}output invalid \(repair 1 asked\): line: Invalid input/m);
    assert.match(
      shown.stdout,
      /^ {2}output:\n {4}\{\n {6}"file": "errors.log",\n {6}"line": 12\n {4}\}$/m,
    );
    const never = await runScript("demo/cli.ts", ["--scenario", "extract-never", ...kv], {
      cwd: dir,
    });
    assert.equal(never.code, 1);
    assert.match(never.stdout, /invalid output at line: Invalid input: expected number/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("before each call, all the model is sent is committed and the call recorded (repairs too)", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvRunStore(kv);
    const state = newRun(TASK);
    await store.save(state);
    const inner = scriptedModel("extract-twice");
    const seen: { sent: number; stored: number; marker: number | undefined }[] = [];
    const model = {
      ...inner,
      async complete(...args: Parameters<typeof inner.complete>) {
        const stored = await new KvRunStore(kv).read(state.runId);
        seen.push({
          sent: args[0].messages.length,
          stored: stored.messages.length,
          marker: stored.modelCall?.turn,
        });
        return await inner.complete(...args);
      },
    };
    const done = await run(state, {
      model,
      output: TIMEOUT_LOCATION,
      store,
      limits: { maxTurns: 4 },
    });
    assert.equal(done.status, "completed");
    // Two invalid answers (no tool calls): each is committed with its repair prompt
    // before the next call, never held for the exit's save.
    assert.deepEqual(seen, [
      { sent: 1, stored: 1, marker: 1 },
      { sent: 3, stored: 3, marker: 2 },
      { sent: 5, stored: 5, marker: 3 },
    ]);
  } finally {
    kv.close();
  }
});
