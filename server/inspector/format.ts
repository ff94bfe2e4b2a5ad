/**
 * Small formatting the inspector's fragments share: money, times, clipped
 * text, run links and labels, pretty call arguments, a run's task.
 *
 * @module
 */
import type { ChatMessage } from "../../harness/messages.ts";
import { type Html, html } from "./html.ts";
import { cutText } from "../../harness/text.ts";

/** The page's link to one run. */
export function runHref(id: string): string {
  return `/ui/runs/${encodeURIComponent(id)}`;
}

/**
 * USD: six decimals below $1 (as the CLI prints), two above.
 *
 * @example
 * ```ts
 * import { formatUsd } from "./format.ts";
 * console.log(formatUsd(0), formatUsd(0.000123), formatUsd(0.5), formatUsd(12)); // $0 $0.000123 $0.500000 $12.00
 * ```
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd) || usd === 0) return "$0";
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  // Six decimals below $1, as the CLI prints: an overshoot of a small budget shows.
  return `$${usd.toFixed(6)}`;
}

/** An ISO time as `2025-01-02 03:04:05 UTC` (the original when it does not parse). */
export function formatTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** A `<time>` element for an ISO time. */
export function time(iso: string): Html {
  return html`<time datetime="${iso}">${formatTime(iso)}</time>`;
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${cutText(flat, max - 1)}…` : flat;
}

/**
 * How a run is named on the page: `root` for a root (`rootLabel`), else its
 * id below the root, whole (`call_0_0.call_1_0`): two leaves of different
 * parents often end in the same call id, so no part of the path is dropped.
 *
 * @example
 * ```ts
 * import { runLabel } from "./format.ts";
 * console.log(runLabel("4f0c.call_0_1.call_1_0")); // call_0_1.call_1_0
 * ```
 */
export function runLabel(id: string, rootLabel?: string): string {
  const dot = id.indexOf(".");
  if (dot > 0) return id.slice(dot + 1);
  return rootLabel ?? id.slice(0, 8);
}

/** Call arguments as indented JSON (the text as is when it is not JSON). */
export function prettyArgs(args: unknown): string {
  if (typeof args === "string") {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2) ?? String(args);
}

/** The text of a run's task: its first user message. */
export function taskOf(messages: readonly ChatMessage[]): string {
  const m = messages.find((m) => m.role === "user");
  return m?.content ?? "";
}
