// An executor's start() (a new run saved with its lease, then executed here) against its
// stop() (an instance evicted): a stop() waits for a start() under way, and the run it saved
// is left `running` with no lease, for a sweep elsewhere; a start() after stop() saves only.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { agentRegistry } from "../runtime/agent_registry.ts";
import { stampOf } from "../runtime/agent_check.ts";
import { createExecutor, type Executor } from "../runtime/executor.ts";
import { defineAgent } from "../subagents/define_agent.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { withKv } from "./kv_helpers.ts";

const parrot = defineAgent({ name: "parrot", instructions: "", tools: [] });
const agents = agentRegistry([parrot]);

async function withExecutors(
  fn: (kv: Deno.Kv, make: (latencyMs?: number) => Executor) => Promise<void>,
) {
  await withKv(async (kv) => {
    const root = await Deno.makeTempDir({ prefix: "reins-executor-start-" });
    const made: Executor[] = [];
    const make = (latencyMs = 0) => {
      const executor = createExecutor({
        kv,
        freshStore: () => new KvRunStore(kv),
        agents,
        makeModel: (name) => scriptedModel(name, { latencyMs }),
        workspaceRoot: root,
        pollMs: 20,
      });
      made.push(executor);
      return executor;
    };
    try {
      await fn(kv, make);
    } finally {
      await Promise.all(made.map((e) => e.stop()));
      await Deno.remove(root, { recursive: true });
    }
  });
}

async function created(task: string) {
  const state = newRun(task, { model: "echo", agent: "parrot" });
  return { state, settings: stampOf(await agents.info(parrot), {}) };
}

Deno.test("a stop() during a start() waits for its save and leaves the run to another", () =>
  withExecutors(async (kv, make) => {
    const executor = make();
    const { state, settings } = await created("hi");
    const started = executor.start(state, settings);
    const stopped = executor.stop(); // before the save has committed
    await stopped;
    // What stop() waited for: the run is stored, running, and its lease is gone.
    const store = new KvRunStore(kv);
    const stored = await store.summary(state.runId);
    assert.equal(stored.status, "running");
    assert.equal(await store.leaseHolder(state.runId), null, "no lease held by a stopped process");
    assert.equal(executor.executing, 0);
    await started;
    // Another process's executor takes it from there.
    const done = await make().execute(state.runId);
    assert.equal(done?.status, "completed");
    assert.equal(done?.output, "hi");
  }));

Deno.test("a start() after stop() saves the run without a lease and executes nothing", () =>
  withExecutors(async (kv, make) => {
    const executor = make();
    await executor.stop();
    const { state, settings } = await created("later");
    await executor.start(state, settings);
    const store = new KvRunStore(kv);
    assert.equal((await store.summary(state.runId)).status, "running");
    assert.equal(await store.leaseHolder(state.runId), null);
    assert.equal(executor.executing, 0);
    assert.equal((await make().execute(state.runId))?.output, "later");
  }));

Deno.test("a start() before stop() executes the run here, and the stop() hands it over", () =>
  withExecutors(async (kv, make) => {
    const executor = make(300); // each reply takes 300 ms: the stop comes mid-call
    const { state, settings } = await created("hello");
    await executor.start(state, settings);
    const store = new KvRunStore(kv);
    assert.equal((await store.leaseHolder(state.runId))?.owner !== undefined, true, "leased here");
    await executor.stop();
    assert.equal((await store.summary(state.runId)).status, "running");
    assert.equal(await store.leaseHolder(state.runId), null);
    const events = (await store.events(state.runId)).map((e) => e.event.type);
    assert.ok(events.includes("run_handed_over"), events.join(", "));
    assert.equal(executor.executing, 0);
    assert.equal((await make().execute(state.runId))?.output, "hello");
  }));
