// A run's stored settings: its agent's stamp and the request's options, validated on
// load with the one RunSettings schema (a record from before agents too); a resume's
// new limits are the run's own, so nothing stored caps the resumed run again.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { RecordError } from "../kv/record_error.ts";
import { continueTree } from "../runtime/continue_tree.ts";
import { createExecutor } from "../runtime/executor.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { stampOf } from "../runtime/agent_check.ts";
import { parseStoredSettings } from "../runtime/run_settings.ts";
import { AgentOptionsSchema } from "../subagents/agent_options.ts";
import { defineAgent } from "../subagents/define_agent.ts";
import { LimitsSchema, RunOptionsSchema } from "../server/schemas.ts";
import { scriptedModel } from "../testing/scripted_model.ts";

const looper = defineAgent({ name: "looper", instructions: "", tools: [] });

async function withExecutor(
  fn: (store: KvRunStore, kv: Deno.Kv, execute: (id: string) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const root = await Deno.makeTempDir({ prefix: "reins-settings-" });
  const executor = createExecutor({
    kv,
    freshStore: () => new KvRunStore(kv),
    agents: agentRegistry([looper]),
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

Deno.test("a stored run's options apply when it runs; a resume's limits are the run's", () =>
  withExecutor(async (store, kv, execute) => {
    const state = newRun("never answers", { model: "runaway", limits: { maxTurns: 2 } });
    const info = await agentRegistry([looper]).info(looper);
    await store.saveSettings(state.runId, stampOf(info, { budgetMode: "hard" }));
    await store.save(state);
    await execute(state.runId);
    let done = await store.load(state.runId);
    assert.equal(done.status, "max_turns_exceeded");
    assert.equal(done.turns, 2);

    await continueTree(store, kv, state.runId, { kind: "resume" }, { limits: { maxTurns: 4 } });
    const stored = parseStoredSettings(state.runId, await store.settings(state.runId));
    assert.deepEqual(stored && "options" in stored && stored.options, { budgetMode: "hard" });
    await execute(state.runId);
    done = await store.load(state.runId);
    assert.equal(done.status, "max_turns_exceeded");
    assert.equal(done.turns, 4);
  }));

Deno.test("stored settings are validated on load: the first bad field is named", () => {
  assert.equal(parseStoredSettings("r1", null), null);
  // Before agents: the options are kept; research ones, prices and limits are not the run's now.
  assert.deepEqual(
    parseStoredSettings("r1", { dedupe: true, researchDepth: 2, limits: { maxTurns: 3 } }),
    { legacy: { dedupe: true } },
  );
  assert.throws(
    () => parseStoredSettings("r1", { limits: { maxTurns: -1 } }),
    (e: Error) => e instanceof RecordError && /"settings\.limits\.maxTurns"/.test(e.message),
  );
  assert.throws(
    () => parseStoredSettings("r1", { budgetMode: "firm" }),
    (e: Error) => e instanceof RecordError && /expected "soft" or "hard"/.test(e.message),
  );
  const stamp = { $schemaVersion: 1, agent: "a", fingerprint: "f", tools: {}, options: {} };
  assert.deepEqual(parseStoredSettings("r1", stamp), stamp);
  assert.throws(
    () => parseStoredSettings("r1", { ...stamp, options: { concurrency: 0 } }),
    (e: Error) => e instanceof RecordError && /"settings\.options\.concurrency"/.test(e.message),
  );
});

Deno.test("the API's run options and limits are the settings' schema, capped", () => {
  assert.equal(AgentOptionsSchema.safeParse({ concurrency: 64 }).success, true);
  assert.equal(RunOptionsSchema.safeParse({ concurrency: 64 }).success, false);
  assert.equal(RunOptionsSchema.safeParse({ prices: { inputPerMillion: 0 } }).success, false);
  assert.equal(RunOptionsSchema.safeParse({ researchDepth: 1 }).success, false);
  assert.equal(LimitsSchema.safeParse({ maxTurns: 1000 }).success, true);
  assert.equal(LimitsSchema.safeParse({ maxTurns: 1001 }).success, false);
  assert.equal(LimitsSchema.safeParse({ maxTurns: 0 }).success, false);
  assert.equal(LimitsSchema.safeParse({ maxBudgetUsd: 0 }).success, false);
});
