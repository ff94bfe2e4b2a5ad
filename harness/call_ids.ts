/**
 * Call ids are the provider's, not ours: providers reuse them across turns
 * (`call_0` every turn) and some omit them. Inside a run every call gets an id
 * unique within the run, which verdicts, intents, dedupe, idempotency keys and
 * child run ids are keyed by; the provider's own id is kept for the wire.
 *
 * @module
 */
import type { ChatMessage, ToolCall } from "./messages.ts";
import { TranscriptScan } from "./transcript_scan.ts";
import { isPlainName } from "./plain_name.ts";

/**
 * The calls of a new reply with ids unique within the run: an id already used
 * by an earlier call of the run is renamed and its original kept as `wireId`
 * (what the provider sees again); a missing id, or one repeated inside the
 * same reply, gets a new id that is also sent on the wire.
 *
 * @example
 * ```ts
 * import { runUniqueIds } from "./call_ids.ts";
 * const earlier = [{ role: "assistant" as const, content: null, tool_calls: [
 *   { id: "call_0", type: "function" as const, function: { name: "f", arguments: "{}" } },
 * ] }];
 * const [c] = runUniqueIds(earlier[0].tool_calls, earlier, 1);
 * console.log(c.id, c.wireId); // call_0_t1_0 call_0
 * ```
 */
export function runUniqueIds(
  calls: readonly Partial<ToolCall>[],
  transcript: readonly ChatMessage[],
  turn: number,
): ToolCall[] {
  const used = usedIds(transcript);
  const inReply = new Set<string>();
  return calls.map((c, i) => {
    const given = typeof c.id === "string" && c.id ? c.id : "";
    // A child run's id, a KV key and a URL are made of it: an id with other
    // characters, or a long one, is named anew (the provider's kept for the wire).
    const plain = isPlainName(given, true);
    let id = plain ? given : `call_${turn}_${i}`;
    let wireId: string | undefined;
    if (given && !inReply.has(given) && (used.has(given) || !plain)) wireId = given;
    // A renamed id may itself be taken: rename until unique in the run.
    for (let n = 0; used.has(id) || inReply.has(id); n++) {
      id = `${plain ? given : "call"}_t${turn}_${i}${n ? `_${n}` : ""}`;
    }
    inReply.add(given);
    inReply.add(id);
    const fn = {
      name: String(c.function?.name ?? ""),
      arguments: String(c.function?.arguments ?? ""),
    };
    // Built without a spread (a hot path), keys in the same order.
    return wireId !== undefined
      ? { id, wireId, type: "function" as const, function: fn }
      : { id, type: "function" as const, function: fn };
  });
}

/** Every call id and wire id used in a transcript (read incrementally: a hot path). */
const callIds = new TranscriptScan<Set<string>>({
  start: () => new Set(),
  step(ids, m) {
    if (m.role !== "assistant") return;
    for (const c of m.tool_calls ?? []) {
      ids.add(c.id);
      if (c.wireId) ids.add(c.wireId);
    }
  },
});

function usedIds(transcript: readonly ChatMessage[]): ReadonlySet<string> {
  return callIds.of(transcript, undefined);
}

/**
 * The transcript as the provider must see it: each renamed call and its result
 * under the provider's own id, and no reins-only fields.
 *
 * @example
 * ```ts
 * import { toWire } from "./call_ids.ts";
 * const wire = toWire([
 *   { role: "assistant", content: null, tool_calls: [
 *     { id: "call_0_t1_0", wireId: "call_0", type: "function", function: { name: "f", arguments: "{}" } },
 *   ] },
 *   { role: "tool", tool_call_id: "call_0_t1_0", name: "f", content: "ok" },
 * ]);
 * console.log(wire[1]); // { role: "tool", tool_call_id: "call_0", name: "f", content: "ok" }
 * ```
 */
export function toWire(messages: readonly ChatMessage[]): ChatMessage[] {
  // Called on every model call, and calls are rarely renamed: look before allocating.
  if (!anyRenamed(messages)) return messages as ChatMessage[];
  const wire = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) if (c.wireId) wire.set(c.id, c.wireId);
  }
  return messages.map((m): ChatMessage => {
    if (m.role === "tool") {
      const id = wire.get(m.tool_call_id);
      return id === undefined ? m : { ...m, tool_call_id: id };
    }
    if (m.role !== "assistant" || !m.tool_calls) return m;
    return {
      ...m,
      tool_calls: m.tool_calls.map(({ wireId, ...c }) => (wireId ? { ...c, id: wireId } : c)),
    };
  });
}

/**
 * Whether a call of a transcript was renamed: asked on every model call, as
 * every request carries the whole transcript, and calls are rarely renamed.
 */
const renames = new TranscriptScan<{ renamed: boolean }>({
  start: () => ({ renamed: false }),
  step(found, m) {
    found.renamed ||= m.role === "assistant" && m.tool_calls?.some((c) => !!c.wireId) === true;
  },
});

function anyRenamed(messages: readonly ChatMessage[]): boolean {
  return renames.of(messages, undefined).renamed;
}
