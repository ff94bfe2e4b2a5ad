// What an executor reads of a run it starts: the run once when nothing moved
// between its look and its lease; what is stored now when something did.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { stampOf } from "../runtime/agent_check.ts";
import { createExecutor } from "../runtime/executor.ts";
import { defineAgent } from "../subagents/define_agent.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { withKv } from "./kv_helpers.ts";

const parrot = defineAgent({ name: "parrot", instructions: "", tools: [] });

/** A store counting its full loads and header reads, calling `beforeLease` once. */
class CountingStore extends KvRunStore {
  static loads = 0;
  static summaries = 0;
  static beforeLease: (() => Promise<void>) | null = null;
  override load(id: string) {
    CountingStore.loads++;
    return super.load(id);
  }
  override summary(id: string) {
    CountingStore.summaries++;
    return super.summary(id);
  }
  override async acquireLease(id: string, owner?: string, ttlMs?: number) {
    const hook = CountingStore.beforeLease;
    CountingStore.beforeLease = null;
    await hook?.();
    return await super.acquireLease(id, owner, ttlMs);
  }
}

async function withExecutor(
  fn: (kv: Deno.Kv, execute: (id: string) => Promise<unknown>) => Promise<void>,
) {
  await withKv(async (kv) => {
    const root = await Deno.makeTempDir({ prefix: "reins-executor-reads-" });
    const agents = agentRegistry([parrot]);
    const executor = createExecutor({
      kv,
      freshStore: () => new CountingStore(kv),
      agents,
      makeModel: (name) => scriptedModel(name),
      workspaceRoot: root,
      pollMs: 20,
    });
    CountingStore.loads = CountingStore.summaries = 0;
    try {
      await fn(kv, (id) => executor.execute(id));
    } finally {
      await executor.stop();
      await Deno.remove(root, { recursive: true });
    }
  });
}

async function storedRun(kv: Deno.Kv, task: string): Promise<string> {
  const s = newRun(task, { model: "echo", agent: "parrot" });
  const info = await agentRegistry([parrot]).info(parrot);
  await new KvRunStore(kv).save(s, { settings: stampOf(info, {}) });
  return s.runId;
}

Deno.test("an executor loads a run once when nothing moved before its lease", () =>
  withExecutor(async (kv, execute) => {
    // A server holds each executing run's state: one copy, not one per read.
    const id = await storedRun(kv, "hi");
    const done = await execute(id) as { output: string };
    assert.equal(done.output, "hi");
    assert.equal(CountingStore.loads, 1);
    assert.equal(CountingStore.summaries, 0);
  }));

Deno.test("a run that moved between the executor's look and its lease runs as stored now", () =>
  withExecutor(async (kv, execute) => {
    const id = await storedRun(kv, "hi");
    CountingStore.beforeLease = async () => {
      // Another process moves the run on (a follow-up message) and lets go of it.
      const other = new KvRunStore(kv, { owner: "other" });
      const s = await other.load(id);
      s.messages.push({ role: "user", content: "bye" });
      await other.save(s);
    };
    const done = await execute(id) as { output: string; status: string };
    assert.equal(done.status, "completed");
    assert.equal(done.output, "bye");
    assert.equal((await new KvRunStore(kv).load(id)).output, "bye");
  }));
