// The encoding of stored values (kv/value_codec.ts): bytes any Deno >= 2.5 reads,
// values stored the old way (by V8's serializer) still read, a later encoding refused.
import { keyBytes } from "../kv/chunks.ts";
import assert from "node:assert/strict";
import { decodeValue, encodeChunk, encodeValue, VALUE_SCHEMA_VERSION } from "../kv/value_codec.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { newRun } from "../harness/state.ts";
import { runKey } from "../kv/keys.ts";

Deno.test("every value is stored as UTF-8 JSON bytes with $schemaVersion inside", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new KvRunStore(kv);
  const s = newRun("naïve ✓ 日本語 ".repeat(6_000)); // a message of several chunks
  s.output = "ö".repeat(40_000); // a header over one value: header chunks
  await store.save(s);
  await store.saveSettings(s.runId, { a: 1 });
  await store.acquireLease(s.runId);
  let n = 0;
  for await (const e of kv.list({ prefix: [] })) {
    n++;
    assert.ok(e.value instanceof Uint8Array, `${JSON.stringify(e.key)} is not bytes`);
    assert.ok(e.value.byteLength <= 65_536, `${JSON.stringify(e.key)} is over 64 KiB`);
    const line = new TextDecoder().decode(e.value).split("\n")[0];
    assert.equal(JSON.parse(line).$schemaVersion, VALUE_SCHEMA_VERSION);
  }
  assert.ok(n > 6, `only ${n} entries`);
  assert.deepEqual(await new KvRunStore(kv).load(s.runId), s);
});

Deno.test("a record stored the old way (V8-serialized values) still loads", async () => {
  await using kv = await Deno.openKv(":memory:");
  const s = newRun("old");
  await new KvRunStore(kv).save(s);
  // Rewrite every entry as reins stored it before: the decoded value itself.
  for await (const e of kv.list({ prefix: [] })) await kv.set(e.key, decodeValue(e.value));
  assert.ok(!((await kv.get(runKey(s.runId))).value instanceof Uint8Array));
  const store = new KvRunStore(kv);
  assert.deepEqual(await store.load(s.runId), s);
  s.messages.push({ role: "assistant", content: "new" });
  await store.save(s); // the old record goes on, its new writes encoded
  assert.ok((await kv.get(runKey(s.runId))).value instanceof Uint8Array);
  assert.deepEqual(await new KvRunStore(kv).load(s.runId), s);
});

Deno.test("an encoding of a later version is refused, other bytes are left to validation", () => {
  const later = new TextEncoder().encode('{"$schemaVersion":2,"value":1}');
  assert.throws(() => decodeValue(later), /encoding \$schemaVersion 2; this reins reads 1/);
  const bytes = new Uint8Array([1, 2, 3]);
  assert.equal(decodeValue(bytes), bytes);
  const chunk = decodeValue(encodeChunk({ parts: 2, data: new Uint8Array([10, 0, 10]) }));
  assert.deepEqual(chunk, { parts: 2, data: new Uint8Array([10, 0, 10]) });
  assert.throws(() => encodeValue({ n: 1n }), TypeError);
  assert.deepEqual(decodeValue(encodeValue("a\nb")), "a\nb");
});

Deno.test("keyBytes counts a string key part's UTF-8 bytes, any text", () => {
  const encoder = new TextEncoder();
  for (
    const s of ["", "run", "é", "日本語", "😀", "a😀b", "\ud800", "\udc00x", "x\ud83d", "mixé😀日"]
  ) {
    assert.equal(keyBytes([s]), encoder.encode(s).byteLength + 2, JSON.stringify(s));
  }
  assert.equal(keyBytes(["run", "r1", "msg", 0, 0]), 32);
});
