import assert from "node:assert/strict";
import { newRun, type RunState } from "../../harness/state.ts";
import { run } from "../../harness/run.ts";
import { RunStateError, RunTooLargeError } from "../../harness/errors.ts";
import type { Model } from "../../harness/model.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { HEADER_CEILING_BYTES } from "../../kv/header_chunks.ts";
import { settled, withServer } from "../server_helpers.ts";
import { sleep } from "../../harness/sleep.ts";

async function withStore(fn: (store: KvRunStore, kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new KvRunStore(kv), kv);
  } finally {
    kv.close();
  }
}

Deno.test("every unbounded field of a run can exceed one KV value and loads whole", () =>
  withStore(async (store, kv) => {
    const s = newRun("big");
    await store.save(s);
    const big = (c: string, n: number) => c.repeat(n);
    const next: RunState = {
      ...structuredClone(s),
      status: "interrupted",
      output: big("o", 120_000),
      error: big("e", 90_000),
      stopReason: big("s", 70_000),
      interruption: {
        type: "approval",
        callId: "c1",
        toolName: "write",
        args: { text: big("a", 100_000) },
        why: "needs_approval",
      },
      rejected: [{ callId: "c0", reason: big("r", 80_000) }],
    };
    await store.save(next);
    const loaded = await new KvRunStore(kv).load(s.runId);
    assert.deepEqual(loaded, { ...next, updatedAt: loaded.updatedAt });
    const summary = await store.summary(s.runId);
    assert.equal(summary.status, "interrupted");
    assert.ok(String(summary.output ?? "").length < 120_000, "the summary carries a preview");
  }));

Deno.test("a final answer larger than one KV value completes and is stored whole", () =>
  withStore(async (store) => {
    const answer = "😀 ".repeat(50_000); // 150,000 characters, 250,000 bytes
    const model: Model = {
      name: "m",
      complete: () =>
        Promise.resolve({
          message: { role: "assistant", content: answer },
          usage: { prompt_tokens: 3, completion_tokens: 3 },
          finishReason: "stop",
        }),
    };
    const s = newRun("answer at length");
    await store.save(s);
    const done = await run(s, { model, store });
    assert.equal(done.status, "completed");
    assert.equal((await store.load(s.runId)).output, answer);
  }));

Deno.test("over the documented ceiling the run ends failed with a reason, never running", () =>
  withStore(async (store, kv) => {
    const s = newRun("huge");
    await store.save(s);
    const huge = { ...structuredClone(s), error: "x".repeat(HEADER_CEILING_BYTES + 10) };
    await assert.rejects(() => store.save(huge), RunTooLargeError);
    const stored = await new KvRunStore(kv).load(s.runId);
    assert.equal(stored.status, "failed");
    assert.match(stored.stopReason ?? "", /ceiling/);
    assert.ok((stored.error ?? "").length < HEADER_CEILING_BYTES, "the text is cut with a marker");
    assert.match(stored.error ?? "", /cut/);
    await assert.rejects(() => run(stored, { model: {} as Model }), TypeError);
    await assert.rejects(
      () => run(stored, { model: { name: "m", complete: () => Promise.reject() } }),
      RunStateError,
    );
  }));

Deno.test("POST /runs refuses a task over the limit with 413 naming the limit", () =>
  withServer({}, async (s) => {
    const res = await s.call("POST", "/runs", { task: "t".repeat(100_001), scenario: "echo" });
    assert.equal(res.status, 413);
    assert.match(JSON.stringify(res.body), /100000|100,000/);
  }));

/** A model whose every answer is `chars` characters long. */
function longWinded(chars: number, calls: { n: number }): Model {
  return {
    name: "long-winded",
    complete: () => {
      calls.n++;
      return Promise.resolve({
        message: { role: "assistant", content: "w".repeat(chars) },
        usage: { prompt_tokens: 3, completion_tokens: 3 },
        finishReason: "stop",
      });
    },
  };
}

Deno.test("run() returns a failed state when its final answer is over the ceiling", () =>
  withStore(async (store, kv) => {
    const calls = { n: 0 };
    const s = newRun("answer at great length");
    await store.save(s);
    const done = await run(s, { model: longWinded(HEADER_CEILING_BYTES + 10, calls), store });
    assert.equal(done.status, "failed");
    assert.match(done.stopReason ?? "", /over the ceiling of 524288 bytes/);
    const stored = await new KvRunStore(kv).load(s.runId);
    assert.equal(stored.status, "failed");
    assert.equal(stored.stopReason, done.stopReason);
    assert.equal(calls.n, 1);
  }));

Deno.test("an answer over the ceiling through POST /runs ends failed with a reason, once", () => {
  const calls = { n: 0 };
  const model = longWinded(HEADER_CEILING_BYTES + 10, calls);
  return withServer({ makeModel: () => model }, async (s) => {
    const res = await s.call("POST", "/runs", { task: "Tell me everything.", model: "long" });
    assert.equal(res.status, 201);
    const done = await settled(s, res.body.runId);
    assert.equal(done.status, "failed");
    assert.match(done.stopReason, /over the ceiling of 524288 bytes/);
    await s.worker.executor.idle();
    await sleep(300); // a redelivered message would execute it again
    await s.worker.executor.idle();
    assert.equal(calls.n, 1, "the model was asked once: the run is not retried");
    const events = await s.store.events(res.body.runId);
    const last = events.at(-1)?.event;
    assert.equal(last?.type, "run_stopped");
    assert.equal(last?.type === "run_stopped" && last.status, "failed");
    assert.equal((await s.call("GET", `/runs/${res.body.runId}`)).body.status, "failed");
  });
});
