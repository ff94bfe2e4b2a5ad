/**
 * What the model sees of a compacted run. The record (`state.messages`) keeps
 * the whole transcript; `state.context` says how the prompt is made of it:
 * the head (system prompt and task), the latest summary in place of the turns
 * it covers, then the rest of the transcript with old tool results elided to
 * a stub. Only indexes and the summary are stored (the messages are
 * append-only), so a save stays small whatever the transcript's length, and a
 * resume or a fork sees the same prompt.
 *
 * @module
 */
import type { ChatMessage, ToolCall, ToolMessage, Usage } from "./messages.ts";

/** How the prompt is made from the transcript, as stored with the run (`state.context`). */
export interface ContextState {
  /** The latest summary (it covers every summary before it), or null. */
  summary: string | null;
  /** Model turns the summary covers. */
  summaryTurns: number;
  /** Messages after the head and before this index are replaced by the summary. */
  summarizedTo: number;
  /** Tool results before this index are shown as a stub (when long enough to be worth it). */
  elidedTo: number;
  /** Compactions made (elisions and summaries). */
  compactions: number;
  /** USD spent on summaries (part of the run's `costUsd`). */
  costUsd: number;
  /** Tokens of the summary calls (part of the run's `usage`). */
  usage: Usage;
}

/** Tool results shorter than this many characters are never elided (a stub would not be shorter). */
export const ELIDE_MIN_CHARS = 400;

/**
 * A context with nothing compacted yet.
 *
 * @example
 * ```ts
 * import { emptyContext } from "./context_view.ts";
 * console.log(emptyContext().compactions); // 0
 * ```
 */
export function emptyContext(): ContextState {
  return {
    summary: null,
    summaryTurns: 0,
    summarizedTo: 0,
    elidedTo: 0,
    compactions: 0,
    costUsd: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
  };
}

/** The head always kept verbatim: the leading system messages and the first user message. */
export function headLength(messages: readonly ChatMessage[]): number {
  let i = 0;
  while (messages[i]?.role === "system") i++;
  return messages[i]?.role === "user" ? i + 1 : i;
}

const SUMMARY_OPENING = "[Summary of turns 1-";

/**
 * The message that stands for the summarized turns (a user message: every
 * provider accepts one anywhere after the task).
 */
export function summaryMessage(context: ContextState): ChatMessage {
  return {
    role: "user",
    content: `${SUMMARY_OPENING}${context.summaryTurns}, written to save context; the full ` +
      `transcript is kept in the run's record]\n${context.summary ?? ""}`,
  };
}

/**
 * Model turns a summary message stands for (0 for any other text): a stateless
 * model (the scripted provider) counts them as turns it has taken.
 *
 * @example
 * ```ts
 * import { emptyContext, summarizedTurnsOf, summaryMessage } from "./context_view.ts";
 * const m = summaryMessage({ ...emptyContext(), summary: "x", summaryTurns: 12 });
 * console.log(summarizedTurnsOf(m.content ?? "")); // 12
 * ```
 */
export function summarizedTurnsOf(text: string): number {
  if (!text.startsWith(SUMMARY_OPENING)) return 0;
  const n = parseInt(text.slice(SUMMARY_OPENING.length), 10);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** The stub a long old tool result is replaced by in the prompt. */
export function elidedStub(result: ToolMessage, call: ToolCall | undefined): ToolMessage {
  const args = call ? ` ${call.function.arguments}` : "";
  return {
    ...result,
    content: `[result elided to save context: ${result.name}${args} returned ` +
      `${result.content.length} characters. Call the tool again if you need them.]`,
  };
}

// Stubs are made once per result: the token counts are cached per message object.
const stubs = new WeakMap<ChatMessage, ToolMessage>();

function callOf(messages: readonly ChatMessage[], i: number, id: string): ToolCall | undefined {
  for (let j = i - 1; j >= 0; j--) {
    const m = messages[j];
    if (m?.role === "assistant" && m.tool_calls) {
      const call = m.tool_calls.find((c) => c.id === id);
      if (call) return call;
    }
  }
  return undefined;
}

/** Message `m`, at index `i`, as the prompt shows it under `context`. */
function shown(
  messages: readonly ChatMessage[],
  m: ChatMessage,
  i: number,
  context: ContextState,
): ChatMessage {
  if (m.role !== "tool" || i >= context.elidedTo || m.content.length < ELIDE_MIN_CHARS) return m;
  let stub = stubs.get(m);
  if (!stub) stubs.set(m, stub = elidedStub(m, callOf(messages, i, m.tool_call_id)));
  return stub;
}

/**
 * Messages `from .. to - 1` as the prompt shows them under `context`.
 *
 * @example
 * ```ts
 * import { emptyContext, shownRange } from "./context_view.ts";
 * console.log(shownRange([{ role: "user", content: "hi" }], emptyContext(), 0, 1).length); // 1
 * ```
 */
export function shownRange(
  messages: readonly ChatMessage[],
  context: ContextState,
  from: number,
  to: number,
): ChatMessage[] {
  return messages.slice(from, to).map((m, k) => shown(messages, m, from + k, context));
}

/** Tool results long enough to elide in `messages[from .. to)`. */
export function elidable(messages: readonly ChatMessage[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const m = messages[i];
    if (m?.role === "tool" && m.content.length >= ELIDE_MIN_CHARS) n++;
  }
  return n;
}

/**
 * The prompt a transcript makes under a context: the head, the summary, the
 * rest with old long tool results elided. Without a context, the transcript.
 *
 * @example
 * ```ts
 * import { contextView, emptyContext } from "./context_view.ts";
 * const messages = [
 *   { role: "user" as const, content: "task" },
 *   { role: "assistant" as const, content: "old" },
 *   { role: "user" as const, content: "more" },
 *   { role: "assistant" as const, content: "new" },
 * ];
 * const view = contextView(messages, { ...emptyContext(), summary: "s", summaryTurns: 1, summarizedTo: 2 });
 * console.log(view.length); // 4: task, summary, "more", "new"
 * ```
 */
export function contextView(
  messages: readonly ChatMessage[],
  context: ContextState | undefined,
): ChatMessage[] {
  if (!context) return messages as ChatMessage[];
  const head = headLength(messages);
  const out = messages.slice(0, head);
  if (context.summary !== null) out.push(summaryMessage(context));
  const from = Math.max(head, context.summarizedTo);
  return out.concat(shownRange(messages, context, from, messages.length));
}

/**
 * Where the last `keep` turns begin (a turn: a model reply, its tool results,
 * and the user messages just before it), or null when nothing after `from`
 * is older than them.
 *
 * @example
 * ```ts
 * import { keptFrom } from "./context_view.ts";
 * const m = [{ role: "user" as const, content: "t" }, { role: "assistant" as const, content: "a" },
 *   { role: "assistant" as const, content: "b" }];
 * console.log(keptFrom(m, 1, 1)); // 2
 * ```
 */
export function keptFrom(
  messages: readonly ChatMessage[],
  from: number,
  keep: number,
): number | null {
  let seen = 0;
  for (let i = messages.length - 1; i >= from; i--) {
    if (messages[i]?.role !== "assistant" || ++seen < keep) continue;
    let cut = i;
    while (cut - 1 >= from && messages[cut - 1]?.role === "user") cut--;
    return cut > from ? cut : null;
  }
  return null;
}

/** Model turns (assistant messages) in `messages[from .. to)`. */
export function turnsBetween(messages: readonly ChatMessage[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (messages[i]?.role === "assistant") n++;
  return n;
}

/**
 * The context of a run whose transcript is cut to its first `count` messages
 * (a fork from an earlier point): a summary covering messages past the cut
 * is dropped (it would tell the model of turns that, in the fork, never
 * happened) and elision stops at the cut. Compactions and their cost stay
 * (they were spent). Undefined when nothing of the context applies.
 *
 * @example
 * ```ts
 * import { contextForPrefix, emptyContext } from "./context_view.ts";
 * const c = { ...emptyContext(), summary: "s", summaryTurns: 3, summarizedTo: 8, elidedTo: 8 };
 * console.log(contextForPrefix(c, 5)?.summary); // null
 * ```
 */
export function contextForPrefix(
  context: ContextState | undefined,
  count: number,
): ContextState | undefined {
  if (!context) return undefined;
  if (context.summarizedTo <= count) {
    return { ...context, elidedTo: Math.min(context.elidedTo, count) };
  }
  return {
    ...context,
    summary: null,
    summaryTurns: 0,
    summarizedTo: 0,
    elidedTo: Math.min(context.elidedTo, count),
  };
}

/**
 * The context a fork of a run cut to `count` messages starts with: how its
 * prompt is made ({@link contextForPrefix}), with no compactions of its own
 * (those were the source's, and paid there). Undefined when the prefix's
 * prompt is the transcript.
 *
 * @example
 * ```ts
 * import { emptyContext, forkContext } from "./context_view.ts";
 * const c = { ...emptyContext(), summary: "s", summaryTurns: 3, summarizedTo: 8, compactions: 2 };
 * console.log(forkContext(c, 10)?.compactions, forkContext(c, 5)); // 0 undefined
 * ```
 */
export function forkContext(
  context: ContextState | undefined,
  count: number,
): ContextState | undefined {
  const cut = contextForPrefix(context, count);
  if (!cut || (cut.summary === null && cut.elidedTo === 0)) return undefined;
  return {
    ...emptyContext(),
    summary: cut.summary,
    summaryTurns: cut.summaryTurns,
    summarizedTo: cut.summarizedTo,
    elidedTo: cut.elidedTo,
  };
}
