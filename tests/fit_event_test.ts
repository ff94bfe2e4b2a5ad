// fitEvent: a trace event too large for one KV value is cut down until it
// fits, whatever its bulk is made of: one long text at any depth, numbers,
// many short texts.
import assert from "node:assert/strict";
import { fitEvent } from "../kv/fit_event.ts";
import type { TraceEvent } from "../harness/trace.ts";

const size = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).byteLength + 40;
const MAX = 60_000;

function stopped(args: unknown): TraceEvent {
  return {
    type: "run_stopped",
    runId: "r1",
    at: "2026-12-03T00:00:00.000Z",
    status: "interrupted",
    reason: "awaiting approval",
    interruption: {
      type: "approval",
      callId: "c1",
      toolName: "write",
      args,
      why: "needs_approval",
    },
    turns: 1,
    costUsd: 0,
  };
}

Deno.test("fitEvent: bulk of any kind is cut until the event fits; its shape stays", () => {
  const bulks = {
    "one long text, nested": { path: "x".repeat(70_000) },
    // Before: only texts were cut, so these never fit and the run stayed running.
    "numbers": { ids: Array.from({ length: 15_000 }, (_, i) => i * 1000) },
    "many short texts": { ids: Array.from({ length: 8_000 }, (_, i) => `id-${i}-abcdef`) },
    "texts just over the bar": { parts: Array.from({ length: 400 }, () => "y".repeat(250)) },
  };
  for (const [kind, args] of Object.entries(bulks)) {
    const cut = fitEvent(stopped(args), MAX, size);
    assert.ok(size(cut) <= MAX, `${kind}: ${size(cut)} bytes`);
    assert.ok(cut.type === "run_stopped" && cut.interruption?.type === "approval", kind);
    assert.equal(cut.interruption.callId, "c1", kind);
    assert.equal(cut.runId, "r1", kind);
    assert.match(JSON.stringify(cut), /(characters|bytes) cut/, kind);
  }
  const small = stopped({ path: "a" });
  assert.equal(fitEvent(small, MAX, size), small, "an event that fits is returned as it is");
});
