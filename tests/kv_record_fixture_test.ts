import assert from "node:assert/strict";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { type DumpedEntry, restoreEntries } from "../kv/record_dump.ts";
import type { RunState } from "../harness/state.ts";
import { scriptedModel } from "../testing/scripted_model.ts";
import { demoTools } from "../tools/catalog.ts";
import { createWorkspace } from "../tools/workspace.ts";
import { continueTree } from "../runtime/continue_tree.ts";
import { executeTree } from "../runtime/execute_tree.ts";

/** Raw KV entries written by reins at `$schemaVersion` 1 (tests/fixtures/make_record_v1.ts). */
interface Fixture {
  runs: Record<"completed" | "waiting", { runId: string; status: string }>;
  entries: DumpedEntry[];
}

const fixture: Fixture = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/record_v1.json", import.meta.url)),
);

function shape(s: RunState): string {
  return s.messages.map((m) => {
    if (m.role === "assistant") {
      return `assistant:${(m.tool_calls ?? []).map((c) => c.function.name).join(",")}`;
    }
    return m.role === "tool" ? `tool:${m.name}` : m.role;
  }).join(" ");
}

async function restored(): Promise<{ kv: Deno.Kv; store: KvRunStore }> {
  const kv = await Deno.openKv(":memory:");
  await restoreEntries(kv, fixture.entries);
  return { kv, store: new KvRunStore(kv) };
}

Deno.test("records stored at schema v1 still load: transcript, status, tool calls and events", async () => {
  const { kv, store } = await restored();
  try {
    const done = await store.load(fixture.runs.completed.runId);
    assert.equal(done.status, "completed");
    assert.equal(done.output, "errors.log mentions a timeout: worker 7 timed out after 30000 ms.");
    assert.equal(
      shape(done),
      "user assistant:list_files tool:list_files assistant:read_file tool:read_file assistant:",
    );
    assert.equal(done.messages[0].content, "Which file mentions a timeout?");
    assert.deepEqual([done.turns, done.toolRuns], [3, 2]);
    assert.equal((await store.events(done.runId)).length, 8);

    const waiting = await store.load(fixture.runs.waiting.runId);
    assert.equal(waiting.status, "interrupted");
    assert.deepEqual(waiting.interruption, {
      type: "approval",
      callId: "call_1_0",
      toolName: "delete_file",
      args: { path: "access.log" },
      why: "needs_approval",
    });
    assert.equal(shape(waiting), "user assistant:list_files tool:list_files assistant:delete_file");

    const listed = await store.list();
    assert.deepEqual(listed.map((r) => r.runId).sort(), [done.runId, waiting.runId].sort());
    assert.equal((await store.summary(waiting.runId)).interruption?.type, "approval");
  } finally {
    kv.close();
  }
});

Deno.test("a run stored at schema v1 awaiting approval can be approved and finished today", async () => {
  const { kv, store } = await restored();
  const ws = await createWorkspace();
  try {
    const id = fixture.runs.waiting.runId;
    await continueTree(store, kv, id, { kind: "approve", callId: "call_1_0" });
    const done = await executeTree(store, kv, id, {
      model: scriptedModel("destructive"),
      tools: demoTools(ws),
    });
    assert.equal(done.status, "completed");
    assert.ok(done.messages.length > 4, "the approved call and the answer were appended");
    assert.ok(done.messages.some((m) => m.role === "tool" && m.name === "delete_file"));
  } finally {
    await ws.remove();
    kv.close();
  }
});
