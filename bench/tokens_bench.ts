/**
 * Token-counting throughput: `countTokens` over a large text never seen
 * before, and `countPromptTokens` over a 100-turn transcript, cold (no string
 * seen before), with new objects for known strings (what the provider sees:
 * it parses each request afresh), and cached (the same message objects, what
 * the harness's hard budget sees turn after turn).
 *
 * @module
 */
import { countPromptTokens, countTokens, loadTokenizer } from "../harness/tokens.ts";
import type { ChatMessage, ToolDefinition } from "../harness/messages.ts";
import { FIXTURES } from "../tools/fixtures.ts";
import { median, progress } from "./instrument.ts";

await loadTokenizer(); // the counting functions need the encoder loaded

/** What {@link benchTokens} measured. */
export interface TokensResult {
  /** Size of the large text in bytes (UTF-8). */
  bytes: number;
  /** Its token count. */
  tokens: number;
  /** Median ms to count it cold. */
  coldMs: number;
  /** Median ms to count the same string again (string cache hit). */
  againMs: number;
  /** Messages in the transcript. */
  messages: number;
  /** Its prompt tokens. */
  promptTokens: number;
  /** Median ms: every string new. */
  promptColdMs: number;
  /** Median ms: new message objects, strings seen before. */
  promptNewObjectsMs: number;
  /** Median ms: the same objects again. */
  promptCachedMs: number;
  reps: number;
}

/** About `size` bytes of log-like text (the demo files, numbers varied), marked with `nonce`. */
export function largeText(size: number, nonce: string): string {
  const base = Object.values(FIXTURES).join("\n");
  const parts: string[] = [`# corpus ${nonce}\n`];
  let n = 0;
  for (let copy = 0; n < size; copy++) {
    const text = base.replace(/\d+/g, (d) => String((Number(d) * 31 + copy) % 100_000)) +
      `\n# copy ${copy} of ${nonce}\n`;
    parts.push(text);
    n += text.length;
  }
  return parts.join("");
}

/**
 * A runaway-like transcript of `turns` turns; `nonce` goes into every text so
 * that no string has been counted before.
 */
export function transcript(turns: number, nonce: string): ChatMessage[] {
  const listing = Object.entries(FIXTURES)
    .map(([name, text]) => `${name} (${new TextEncoder().encode(text).length} bytes)`)
    .join("\n");
  const messages: ChatMessage[] = [
    { role: "system", content: `You are a careful assistant working in a log folder (${nonce}).` },
    { role: "user", content: `Which file mentions a timeout? (${nonce})` },
  ];
  for (let t = 0; t < turns; t++) {
    const id = `call_${t}_0`;
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "list_files", arguments: "{}" } }],
    });
    messages.push({
      role: "tool",
      tool_call_id: id,
      name: "list_files",
      content: `${listing}\n(listed at turn ${t}, ${nonce})`,
    });
  }
  return messages;
}

function time(f: () => unknown): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

/** Runs the token-counting measurements (`reps` repetitions each, medians). */
export function benchTokens(
  definitions: ToolDefinition[],
  options: { bytes?: number; reps?: number } = {},
): TokensResult {
  const size = options.bytes ?? 1_048_576;
  const reps = options.reps ?? 3;
  progress(`token counting: ${(size / 1_048_576).toFixed(1)} MiB text and a 100-turn transcript`);
  // Warm the encoder (its rank tables load on first use) with unrelated text.
  countTokens(largeText(20_000, "warm-up"));

  const cold: number[] = [];
  const again: number[] = [];
  let tokens = 0;
  let bytes = 0;
  for (let i = 0; i < reps; i++) {
    const text = largeText(size, crypto.randomUUID());
    bytes = new TextEncoder().encode(text).length;
    cold.push(time(() => tokens = countTokens(text)));
    again.push(time(() => countTokens(text)));
  }

  const pc: number[] = [];
  const pn: number[] = [];
  const pk: number[] = [];
  let promptTokens = 0;
  let count = 0;
  for (let i = 0; i < reps * 3; i++) {
    const messages = transcript(100, crypto.randomUUID());
    count = messages.length;
    pc.push(time(() => promptTokens = countPromptTokens(messages, definitions)));
    const fresh = structuredClone(messages);
    pn.push(time(() => countPromptTokens(fresh, definitions)));
    pk.push(time(() => countPromptTokens(messages, definitions)));
  }
  return {
    bytes,
    tokens,
    coldMs: median(cold),
    againMs: median(again),
    messages: count,
    promptTokens,
    promptColdMs: median(pc),
    promptNewObjectsMs: median(pn),
    promptCachedMs: median(pk),
    reps,
  };
}
