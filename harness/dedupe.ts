/**
 * The dedupe cache: a call's signature (tool + canonical arguments) and the
 * earlier result that answers a repeated read-only call.
 *
 * @module
 */
import type { RunContext } from "./run_context.ts";
import type { AnyTool } from "./run_options.ts";

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same call. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
  );
}

/**
 * A 64-bit FNV-1a hash as hex: keeps dedupe keys in the stored header small
 * whatever the arguments' size (hits are confirmed against the real arguments).
 */
export function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

/** The signature of a call: `name:hash` of its canonical arguments. */
export function callSignature(toolName: string, args: unknown): string {
  return `${toolName}:${fnv1a(canonicalJson(args))}`;
}

/** The dedupe cache's result for this call, if dedupe applies and it has one. */
export function cachedResult(
  ctx: RunContext,
  r: { tool: AnyTool; signature: string; args: unknown },
): string | undefined {
  const { state, options } = ctx;
  if (!options.dedupe || !(r.tool.readOnly || options.dedupeAll)) return undefined;
  const cachedId = state.resultCache[r.signature];
  return cachedId === undefined ? undefined : resultOf(state, cachedId, r.args);
}

/** The cached result for a call with these arguments, confirming the hash hit. */
function resultOf(state: RunContext["state"], callId: string, args: unknown): string | undefined {
  let content: string | undefined;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (m.role === "tool" && m.tool_call_id === callId) content = m.content;
    if (m.role === "assistant" && content !== undefined) {
      const call = m.tool_calls?.find((c) => c.id === callId);
      if (!call) continue;
      try {
        return canonicalJson(JSON.parse(call.function.arguments)) === canonicalJson(args)
          ? content
          : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
