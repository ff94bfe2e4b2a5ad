/**
 * The inspector's conversation controls: a reply box under a stopped run (a
 * follow-up, answered in the same run) and, in the transcript, "Fork from
 * here" on each turn a fork can start from (the quote is shown before the
 * person confirms; see static/conversation.js).
 *
 * @module
 */
import { followUpRefusal } from "../../harness/follow_up.ts";
import { forkableTurns } from "../../harness/fork.ts";
import type { ChatMessage } from "../../harness/messages.ts";
import { type Html, html } from "./html.ts";
import type { RunView } from "../views.ts";
import { runHref, runLabel } from "./format.ts";

/**
 * The reply box of a run that can take a follow-up (a root run that
 * completed or stopped at a limit or a Stop, no verdict awaited), else nothing.
 *
 * @example
 * ```ts
 * import { renderReplyBox } from "./conversation.ts";
 * import { newRun } from "../../harness/state.ts";
 * import { runView } from "../views.ts";
 * const s = { ...newRun("hi"), status: "completed" as const };
 * const run = runView(s, null);
 * const d = { run, root: run, messages: s.messages, nodes: [], stop: null };
 * console.log(String(renderReplyBox(d)).includes('data-action="reply"')); // true
 * ```
 */
export function renderReplyBox(d: { run: RunView; messages: readonly ChatMessage[] }): Html | "" {
  const { run } = d;
  if (followUpRefusal({ ...run, messages: d.messages as ChatMessage[] }) !== null) return "";
  return html`
    <form class="reply" data-action="reply" data-run-id="${run.runId}">
      <h2>Reply</h2>
      <div class="row">
        <input name="content" type="text" placeholder="Your next message (the run answers it)"
          aria-label="Your next message" autocomplete="off" required>
        <button type="submit">Send</button>
      </div>
      <p class="hint">Answered in this run: its spend, its turns and its trace go on. The turn
        cap counts from this message; the budget is the whole conversation's.</p>
    </form>
  `;
}

/** The "Fork from here" button of turn `turn` of run `runId`. */
export function forkButton(runId: string, turn: number): Html {
  return html`<div class="fork-from"><button type="button" class="fork" data-action="fork"
    data-run-id="${runId}" data-turn="${turn}" title="A new run from after this turn (its tool results included); its next call is quoted before it runs">Fork from here</button></div>`;
}

/**
 * Where each turn a fork can start from ends in the transcript (its last
 * message: the reply, its last tool result, or a person's next message), by
 * message index; turn 0 ends with the task.
 *
 * @example
 * ```ts
 * import { forkPoints } from "./conversation.ts";
 * console.log(forkPoints([{ role: "user", content: "hi" }])); // Map(1) { 0 => 0 }
 * ```
 */
export function forkPoints(messages: readonly ChatMessage[]): Map<number, number> {
  const turns = forkableTurns(messages);
  const out = new Map<number, number>();
  let turn = 0;
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    if (i > 0 && turns.has(turn)) out.set(i - 1, turn);
    turn++;
  });
  if (turns.has(turn)) out.set(messages.length - 1, turn);
  return out;
}

/** The transcript's options on a run page: fork buttons on a root run's turns. */
export function transcriptOptions(d: { run: RunView }): { forkRunId?: string } {
  return d.run.parentId === null ? { forkRunId: d.run.runId } : {};
}

/**
 * "Forked from <run> at turn N" on a fork's page, else nothing.
 *
 * @example
 * ```ts
 * import { renderForkOrigin } from "./conversation.ts";
 * console.log(String(renderForkOrigin({ forkedFrom: { runId: "r1", turn: 2 } })).includes("turn 2")); // true
 * ```
 */
export function renderForkOrigin(run: Pick<RunView, "forkedFrom">): Html | "" {
  const origin = run.forkedFrom;
  if (!origin) return "";
  return html`<p class="crumb">Forked from <a href="${runHref(origin.runId)}">${
    runLabel(origin.runId)
  }</a> at turn ${origin.turn}</p>`;
}
