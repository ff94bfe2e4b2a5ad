// A run's stored settings: validated on load with the one RunSettings schema, and their
// limits apply when the executor runs (or resumes) the run; a resume's new limits replace them.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { RecordError } from "../kv/record_error.ts";
import { continueTree } from "../runtime/continue_tree.ts";
import { createExecutor } from "../runtime/executor.ts";
import { parseStoredSettings, RunSettingsSchema } from "../runtime/run_settings.ts";
import { LimitsSchema, RunOptionsSchema } from "../server/schemas.ts";
import { scriptedModel } from "../testing/scripted_model.ts";

async function withExecutor(
  fn: (store: KvRunStore, kv: Deno.Kv, execute: (id: string) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const root = await Deno.makeTempDir({ prefix: "reins-settings-" });
  const executor = createExecutor({
    kv,
    freshStore: () => new KvRunStore(kv),
    makeModel: (name) => scriptedModel(name),
    workspaceRoot: root,
    pollMs: 20,
  });
  try {
    await fn(new KvRunStore(kv), kv, (id) => executor.execute(id));
  } finally {
    await executor.stop();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("a stored run's settings.limits apply when it runs, and on resume after a new limit", () =>
  withExecutor(async (store, kv, execute) => {
    const state = newRun("never answers", { model: "runaway", limits: { maxTurns: 20 } });
    await store.saveSettings(state.runId, { limits: { maxTurns: 2 } });
    await store.save(state);
    await execute(state.runId);
    let done = await store.load(state.runId);
    assert.equal(done.status, "max_turns_exceeded");
    assert.equal(done.turns, 2);

    // A resume with more turns raises the settings' limit too, else it would cap the run again.
    await continueTree(store, kv, state.runId, { kind: "resume" }, { limits: { maxTurns: 4 } });
    assert.deepEqual(
      parseStoredSettings(state.runId, await store.settings(state.runId)).limits,
      { maxTurns: 4 },
    );
    await execute(state.runId);
    done = await store.load(state.runId);
    assert.equal(done.status, "max_turns_exceeded");
    assert.equal(done.turns, 4);
  }));

Deno.test("stored settings are validated on load: the first bad field is named", () => {
  assert.deepEqual(parseStoredSettings("r1", null), {});
  assert.throws(
    () => parseStoredSettings("r1", { limits: { maxTurns: -1 } }),
    (e: Error) => e instanceof RecordError && /"settings\.limits\.maxTurns"/.test(e.message),
  );
  assert.throws(
    () => parseStoredSettings("r1", { budgetMode: "firm" }),
    (e: Error) => e instanceof RecordError && /expected "soft" or "hard"/.test(e.message),
  );
});

Deno.test("the API's run options and limits are the settings' schema, capped", () => {
  assert.equal(RunSettingsSchema.safeParse({ concurrency: 64 }).success, true);
  assert.equal(RunOptionsSchema.safeParse({ concurrency: 64 }).success, false);
  assert.equal(RunOptionsSchema.safeParse({ prices: { inputPerMillion: 0 } }).success, false);
  assert.equal(LimitsSchema.safeParse({ maxTurns: 1000 }).success, true);
  assert.equal(LimitsSchema.safeParse({ maxTurns: 1001 }).success, false);
  assert.equal(LimitsSchema.safeParse({ maxTurns: 0 }).success, false);
  assert.equal(LimitsSchema.safeParse({ maxBudgetUsd: 0 }).success, false);
});
