/**
 * Shrinking a trace event too large for one KV value: its longest texts cut
 * at any depth (an approval's arguments sit inside its `interruption`), then
 * its largest nested values replaced by a note of their size, until it fits.
 * A trace line loses detail, never the event: the state keeps what the event
 * only reports.
 *
 * @module
 */
import type { TraceEvent } from "../harness/trace.ts";
import { cutText } from "../harness/text.ts";

type Node = Record<string | number, unknown>;
/** Where a value sits: its holder and key. */
type Spot = { holder: Node; key: string | number };

/** A text shorter than this is not worth cutting: its note would be about as long. */
const WORTH_CUTTING = 200;

/**
 * `event` as it fits `maxBytes` by `size` (the caller's measure of a stored
 * value): returned as it is when it fits, else a copy cut down.
 *
 * @example
 * ```ts
 * import { fitEvent } from "./fit_event.ts";
 * const size = (v: unknown) => JSON.stringify(v).length;
 * const e = { type: "tool_start", runId: "r", at: "", toolName: "t", callId: "c",
 *   args: "x".repeat(5000) } as const;
 * const cut = fitEvent(e, 1000, size);
 * console.log(size(cut) <= 1000, cut.type); // true tool_start
 * ```
 */
export function fitEvent(
  event: TraceEvent,
  maxBytes: number,
  size: (value: unknown) => number,
): TraceEvent {
  if (size(event) <= maxBytes) return event;
  // A JSON copy: what is stored (undefined fields and functions dropped).
  const copy = JSON.parse(JSON.stringify(event)) as Node;
  for (let over = size(copy) - maxBytes; over > 0; over = size(copy) - maxBytes) {
    const text = longest(copy, (v) => typeof v === "string" ? v.length : -1);
    const value = text && (text.holder[text.key] as string);
    // A text that can close much of the gap is cut, by what is over (at least half of it);
    // else the bulk is many small values: the heaviest goes whole (no halving them in turn).
    if (text && value && value.length > WORTH_CUTTING && value.length * 4 > over) {
      const keep = Math.max(0, Math.min(Math.floor(value.length / 2), value.length - over - 64));
      text.holder[text.key] = `${cutText(value, keep)}… [${value.length - keep} characters cut]`;
      continue;
    }
    if (!cutLargest(copy, size)) break;
  }
  return copy as unknown as TraceEvent;
}

/**
 * Replaces the heaviest nested value with a note of its size: from the root,
 * into the largest child while one child holds most of its parent (so an
 * approval's arguments go, not the interruption around them); false if none.
 */
function cutLargest(root: Node, size: (value: unknown) => number): boolean {
  let node = root;
  let parent: { spot: Spot; bytes: number } | null = null;
  for (;;) {
    let best: string | null = null;
    let most = -1;
    for (const key of Object.keys(node)) {
      const v = node[key];
      const heavy = (typeof v === "object" && v !== null) ||
        (typeof v === "string" && v.length > 40);
      if (heavy && size(v) > most) [best, most] = [key, size(v)];
    }
    // No child holds most of this value: it goes whole.
    if (parent && (best === null || most < parent.bytes / 2)) {
      parent.spot.holder[parent.spot.key] = `[${parent.bytes} bytes cut]`;
      return true;
    }
    if (best === null) return false;
    const v = node[best];
    if (typeof v !== "object" || v === null) {
      node[best] = `[${most} bytes cut]`;
      return true;
    }
    parent = { spot: { holder: node, key: best }, bytes: most };
    node = v as Node;
  }
}

/** The spot of the value `measure` rates highest (below the root), or null when none rates. */
function longest(root: Node, measure: (v: unknown) => number): Spot | null {
  let best: Spot | null = null;
  let most = -1;
  const walk = (node: Node) => {
    for (const key of Object.keys(node)) {
      const v = node[key];
      const m = measure(v);
      if (m > most) [best, most] = [{ holder: node, key }, m];
      if (typeof v === "object" && v !== null) walk(v as Node);
    }
  };
  walk(root);
  return best;
}
