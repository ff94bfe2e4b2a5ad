/**
 * The head of a run page (task, state, cost, answer or error) and its
 * controls (Approve, Reject, Stop, Resume).
 *
 * @module
 */
import type { ChatMessage } from "../../harness/messages.ts";
import type { Interruption } from "../../harness/state.ts";
import type { StopRequest } from "../../kv/stop_record.ts";
import type { TreeNode } from "../../subagents/tree.ts";
import type { RunView } from "../views.ts";
import { clip, formatUsd, prettyArgs, runHref, runLabel, taskOf, time } from "./format.ts";
import { type Html, html } from "./html.ts";
import { badge, statusWords } from "./status_words.ts";
import type { ToolRow } from "./tool_rows.ts";
import type { Spend } from "./spend.ts";
import { renderRaiseForm } from "./resume_form.ts";
import { usdPair } from "../../harness/spend_text.ts";
import { renderForkOrigin, renderReplyBox } from "./conversation.ts";

/** A run of the tree with why it stopped (as data). */
export type TreeNodeView = TreeNode & { interruption: Interruption | null };

/** Everything the run page shows. */
export interface RunPageData {
  /** The run the page is about (any run of a tree). */
  run: RunView;
  /** Its transcript. */
  messages: readonly ChatMessage[];
  /** The root of its tree (the run itself for a top-level run). */
  root: RunView;
  /** The tree, root first, with why each run stopped. */
  nodes: readonly TreeNodeView[];
  /** The Stop recorded for the tree, if any. */
  stop: StopRequest | null;
  /** Where the run's repair prompts are in `messages` (a typed run's `outputRepairs`). */
  repairs?: readonly number[] | undefined;
  /** The tool calls of each run's last turn, by run id (none shown when absent). */
  tools?: Readonly<Record<string, readonly ToolRow[]>>;
  /** The run's spend call by call, for the budget picture (none shown when absent). */
  spend?: Spend;
}

/** The facts of a run: cost against budget (digits enough to show an overshoot), turns, … */
function renderFacts(run: RunView): Html {
  const tokens = run.usage.prompt_tokens + run.usage.completion_tokens;
  const [cost, budget] = usdPair(run.costUsd, run.limits.maxBudgetUsd);
  const lease = run.lease
    ? html`
      <div>
        <dt>Executing on</dt>
        <dd>${run.lease.owner}</dd>
      </div>
    `
    : "";
  const byChildren = run.childCostUsd
    ? html`
      <span class="muted">(${formatUsd(run.childCostUsd)} by subagents)</span>
    `
    : "";
  return html`<dl class="facts">
<div><dt>Cost so far</dt><dd class="cost">${cost}${byChildren}</dd></div>
<div><dt>Turns</dt><dd>${run.turns} of ${run.limits.maxTurns}</dd></div>
<div><dt>Budget</dt><dd>${budget}</dd></div>
<div><dt>Tokens</dt><dd>${tokens.toLocaleString("en-US")}</dd></div>
<div><dt>Tool runs</dt><dd>${run.toolRuns}</dd></div>
${
    run.compaction
      ? html`
        <div>
          <dt>Compactions</dt>
          <dd>${run.compaction.compactions} · ${formatUsd(
            run.compaction.costUsd,
          )}</dd>
        </div>
      `
      : ""
  }
<div><dt>Agent</dt><dd>${run.agent ?? "—"}</dd></div>
<div><dt>Model</dt><dd>${run.model ?? "—"}</dd></div>
<div><dt>Started</dt><dd>${time(run.createdAt)}</dd></div>
${lease}
</dl>`;
}

/** The answer or the error of a finished run. */
function renderOutcome(run: RunView): Html {
  const answer = renderOutput(run);
  const error = run.error !== null
    ? html`
      <div class="failure">
        <h2>Error</h2>
        <pre>${run.error}</pre>
      </div>
    `
    : "";
  return html`${answer}${error}`;
}

/** The head of the run page: task, state in words, cost, turns, answer or error. */
export function renderSummary(d: RunPageData): Html {
  const { run } = d;
  const words = statusWords(run, run.status === "running" ? d.stop : null);
  const isRoot = run.runId === run.rootId;
  const parent = run.parentId ?? run.rootId;
  const crumb = isRoot ? "" : html`
    <p class="crumb">Subagent of <a href="${runHref(parent)}">${runLabel(parent)}</a>
      · tree <a href="${runHref(run.rootId)}">${runLabel(run.rootId)}</a></p>
  `;
  return html`<div class="head tone-${words.tone}">
<div class="state">${badge(words)}${
    words.detail ? html`<p class="why">${words.detail}</p>` : ""
  }</div>
<h1 class="task-title">${clip(taskOf(d.messages), 300) || "(no task)"}</h1>
${renderForkOrigin(run)}
${crumb}
${renderFacts(run)}
${renderOutcome(run)}
</div>`;
}

/** The answer: text as it is, a typed run's value as formatted JSON. */
function renderOutput(run: RunView): Html | "" {
  if (run.output === null) return "";
  const text = typeof run.output === "string";
  const shown = text ? run.output : JSON.stringify(run.output, null, 2);
  return html`
    <div class="answer">
      <h2>${text ? "Answer" : "Output"}</h2>
      <pre class="${text ? "" : "json"}">${shown}</pre>
    </div>
  `;
}

/**
 * The controls of the tree: the call awaiting a verdict with Approve and
 * Reject (with a reason), Stop for a running tree, Resume for a stopped one
 * (raising the budget or the turn cap when one of them stopped it).
 * They act on the tree's root (a verdict reaches a call held by a subagent).
 */
export function renderControls(d: RunPageData): Html {
  const { root } = d;
  const i = root.interruption;
  const forms: Html[] = [];
  if (root.status === "interrupted" && i?.type === "approval") {
    const holder = i.runId && i.runId !== root.runId ? i.runId : root.runId;
    forms.push(html`
      <form class="verdict" data-action="verdict" data-root-id="${root.runId}" data-call-id="${i
        .callId}">
        <h2>Waiting for your verdict</h2>
        <p><b class="tool-ref">${i.toolName}</b> ${i.why === "uncertain_effect"
          ? "may or may not have run before a crash. Approve runs it again."
          : "needs approval before it runs."} Call <code>${i
          .callId}</code> of ${holder === root.runId
          ? "this tree's root"
          : html`subagent <a href="${runHref(holder)}">${runLabel(holder)}</a>`}.</p>
        <pre class="args">${prettyArgs(i.args)}</pre>
        <div class="row">
          <button type="submit" name="verdict" value="approve" class="approve">Approve</button>
          <input name="reason" type="text" placeholder="Why reject? (the model reads this)"
            aria-label="Reason for rejecting" autocomplete="off">
          <button type="submit" name="verdict" value="reject" class="reject">Reject</button>
        </div>
      </form>
    `);
  }
  if (root.status === "running") {
    forms.push(html`
      <form class="stop" data-action="stop" data-root-id="${root.runId}">
        <div class="row">
          <button type="submit" class="danger">${d.stop ? "Stop again" : "Stop the tree"}</button>
          <input name="reason" type="text" placeholder="Why stop? (optional)"
            aria-label="Reason for stopping" autocomplete="off">
        </div>
        <p class="hint">Stops every run of this tree, wherever it executes.</p>
      </form>
    `);
  } else if (renderRaiseForm(root)) {
    forms.push(renderRaiseForm(root)!);
  } else if (root.status === "interrupted" && i?.type === "cancelled") {
    forms.push(html`
      <form class="resume" data-action="resume" data-root-id="${root.runId}">
        <div class="row"><button type="submit">Resume the tree</button></div>
      </form>
    `);
  }
  const reply = renderReplyBox(d);
  if (reply) forms.push(reply);
  if (!forms.length) {
    return html`<p class="muted">The tree awaits nothing (${
      statusWords(root).label.toLowerCase()
    }).</p>`;
  }
  return html`${forms}`;
}
