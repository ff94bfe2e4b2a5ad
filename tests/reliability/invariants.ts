// Shared by the reliability tests: a seeded PRNG and the invariants every run
// must keep whatever the model, the provider or the tools did.
import assert from "node:assert/strict";
import type { ChatMessage } from "../../harness/messages.ts";
import type { RunState } from "../../harness/state.ts";
import type { TraceEvent } from "../../harness/trace.ts";

/** The five exits of a run. */
export const EXITS = [
  "completed",
  "failed",
  "max_turns_exceeded",
  "budget_exceeded",
  "interrupted",
] as const;

/** mulberry32: a small, fast, seeded PRNG (same seed, same sequence). */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [0, n). */
    int: (n: number): number => Math.floor(next() * n),
    /** One of the items, uniformly. */
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    /** True with probability p. */
    chance: (p: number): boolean => next() < p,
  };
}

/** The seed from `REINS_FUZZ_SEED` (decimal or 0x hex), else `fallback`. */
export function seedFromEnv(fallback: number): number {
  const raw = Deno.env.get("REINS_FUZZ_SEED");
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new RangeError(`REINS_FUZZ_SEED must be an integer, got ${raw}`);
  return n >>> 0;
}

/**
 * The transcript is well formed: every tool call id is a non-empty string,
 * unique within its message; every tool message answers a call of the
 * assistant message before it; every call of every assistant message but the
 * last has exactly one result, and the last one's calls at most one.
 */
export function assertWellFormed(messages: readonly ChatMessage[], label = ""): void {
  let open: Map<string, number> | null = null;
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const close = (isLast: boolean) => {
    if (!open) return;
    for (const [id, n] of open) {
      if (isLast) assert.ok(n <= 1, `${label}: call ${id} of the last message has ${n} results`);
      else assert.equal(n, 1, `${label}: call ${id} has ${n} results, expected exactly one`);
    }
  };
  messages.forEach((m, i) => {
    if (m.role === "assistant") {
      close(false);
      const ids = (m.tool_calls ?? []).map((c) => c.id);
      for (const id of ids) {
        assert.ok(typeof id === "string" && id !== "", `${label}: empty call id in message ${i}`);
      }
      assert.equal(new Set(ids).size, ids.length, `${label}: duplicate call ids ${ids}`);
      open = new Map(ids.map((id) => [id, 0]));
    } else if (m.role === "tool") {
      assert.ok(open, `${label}: tool message ${i} answers no assistant message`);
      const n = open.get(m.tool_call_id);
      assert.ok(n !== undefined, `${label}: tool message ${i} answers unknown ${m.tool_call_id}`);
      open.set(m.tool_call_id, n + 1);
    } else {
      close(false);
      open = null;
    }
  });
  close(lastAssistant !== -1);
}

/**
 * The run ended in one of the five exits with a reason; its costs are finite,
 * non-negative and equal the sum of its turns' costs; its turns match the
 * transcript; the transcript is well formed.
 */
export function assertSaneExit(
  s: RunState,
  events: readonly TraceEvent[],
  label = "",
  /** The cost the run had before this `run()` call (a resumed run). */
  costBefore = 0,
): void {
  assert.ok((EXITS as readonly string[]).includes(s.status), `${label}: status ${s.status}`);
  assert.ok(
    typeof s.stopReason === "string" && s.stopReason.trim() !== "",
    `${label}: no stopReason`,
  );
  assert.ok(Number.isFinite(s.costUsd) && s.costUsd >= 0, `${label}: costUsd ${s.costUsd}`);
  for (const n of [s.usage.prompt_tokens, s.usage.completion_tokens]) {
    assert.ok(Number.isFinite(n) && n >= 0, `${label}: usage ${JSON.stringify(s.usage)}`);
  }
  let sum = costBefore;
  let estimated = 0;
  for (const e of events) {
    if (e.type === "spend_estimated") {
      // A reply the provider may have billed (lost, malformed): part of the cost, traced.
      assert.ok(Number.isFinite(e.usd) && e.usd >= 0, `${label}: estimate`);
      estimated += e.usd;
    }
    if (e.type !== "turn") continue;
    assert.ok(Number.isFinite(e.turnCostUsd) && e.turnCostUsd >= 0, `${label}: turn cost`);
    sum += e.turnCostUsd;
  }
  sum += estimated;
  assert.ok(
    Math.abs(sum - s.costUsd) <= 1e-9 * Math.max(1, s.costUsd),
    `${label}: cost ${s.costUsd} != sum of turns and estimates ${sum}`,
  );
  assert.equal(
    s.messages.filter((m) => m.role === "assistant").length,
    s.turns,
    `${label}: turns vs assistant messages`,
  );
  // Every turn of this call is in the trace (a resumed run also has earlier ones).
  assert.ok(events.filter((e) => e.type === "turn").length <= s.turns, `${label}: turn events`);
  assert.equal(events.at(-1)?.type, "run_stopped", `${label}: last event`);
  assertWellFormed(s.messages, label);
}
