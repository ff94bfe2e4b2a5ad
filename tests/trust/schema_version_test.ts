// The header's optional additions (promptRatio, overflow, wireId) are schema 1:
// a run using them is stored and loaded at $schemaVersion 1.
import assert from "node:assert/strict";
import { newRun, RUN_SCHEMA_VERSION, type RunState } from "../../harness/state.ts";
import { KvRunStore } from "../../kv/kv_run_store.ts";
import { decodeValue } from "../../kv/value_codec.ts";

Deno.test("a run with every optional addition is stored and read back at schema version 1", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new KvRunStore(kv);
  const s = newRun("additions");
  await store.save(s);
  const next: RunState = {
    ...structuredClone(s),
    promptRatio: 1.27,
    output: "o".repeat(100_000), // over one KV value: the header overflows into chunks
    messages: [...s.messages, {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_0~2",
        wireId: "call_0",
        type: "function",
        function: { name: "list_files", arguments: "{}" },
      }],
    }],
  };
  await store.save(next);
  assert.equal(RUN_SCHEMA_VERSION, 1);
  const raw = [];
  for await (const e of kv.list({ prefix: [] })) {
    const v = decodeValue(e.value) as { $schemaVersion?: unknown; overflow?: unknown } | null;
    if (v && typeof v === "object" && "$schemaVersion" in v) raw.push(v);
  }
  assert.ok(raw.some((v) => v.overflow !== undefined), "the stored header overflowed");
  assert.ok(raw.every((v) => v.$schemaVersion === 1));
  const loaded = await new KvRunStore(kv).load(s.runId);
  assert.deepEqual(loaded, { ...next, updatedAt: loaded.updatedAt });
});
