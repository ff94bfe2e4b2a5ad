/**
 * The run inspector's HTML, rendered on the server: the run list, a run's
 * summary, tree, controls and transcript. Every value goes through
 * {@link html}, which escapes it (transcripts are model and tool output), so
 * nothing from a run is ever markup. The page's script (`static/inspector_js.ts`)
 * fetches these same fragments with the bearer token and streams live events;
 * without JavaScript the run list and the transcript still read.
 *
 * @module
 */
import type { ChatMessage } from "../harness/messages.ts";
import type { Interruption, RunStatus } from "../harness/state.ts";
import type { RunSummary } from "../kv/kv_run_store.ts";
import type { StopRequest } from "../kv/stop_record.ts";
import type { TreeNode } from "../subagents/tree.ts";
import type { RunView } from "./views.ts";

/** Markup that is already safe (built by {@link html}); anything else is escaped. */
export class Html {
  /** The markup. */
  readonly value: string;
  /** Wraps markup that is known to be safe. */
  constructor(value: string) {
    this.value = value;
  }
  /** The markup. */
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML content and quoted attribute values.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "./inspector_html.ts";
 * console.log(escapeHtml(`<script>alert("x")</script>`));
 * // &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function part(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * A template tag: the literal parts are markup, every interpolated value is
 * escaped unless it is {@link Html} (arrays are joined; null, undefined and
 * false render nothing). Attribute values must be double-quoted.
 *
 * @example
 * ```ts
 * import { html } from "./inspector_html.ts";
 * const task = "<img src=x onerror=alert(1)>";
 * console.log(html`<p title="${task}">${task}</p>`.value);
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new Html(out);
}

/** The page's link to one run. */
export function runHref(id: string): string {
  return `/ui/runs/${encodeURIComponent(id)}`;
}

/**
 * USD with as many decimals as a small amount needs.
 *
 * @example
 * ```ts
 * import { formatUsd } from "./inspector_html.ts";
 * console.log(formatUsd(0), formatUsd(0.000123), formatUsd(0.5), formatUsd(12)); // $0 $0.000123 $0.5000 $12.00
 * ```
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd) || usd === 0) return "$0";
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  if (Math.abs(usd) >= 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(6)}`;
}

/** An ISO time as `2025-01-02 03:04:05 UTC` (the original when it does not parse). */
export function formatTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

function time(iso: string): Html {
  return html`<time datetime="${iso}">${formatTime(iso)}</time>`;
}

/** How a run's state reads at a glance: a tone (for colour), a label and a sentence. */
export interface StatusWords {
  /** running | waiting | done | stopped | limit | failed | stopping: drives the colour. */
  tone: "running" | "waiting" | "done" | "stopped" | "limit" | "failed" | "stopping";
  /** One or two words: `Running`, `Waiting for your verdict`, `Completed`, … */
  label: string;
  /** Why, in a sentence (empty when there is nothing to add). */
  detail: string;
}

/** The fields {@link statusWords} reads. */
export type StatusFields = {
  status: RunStatus;
  interruption?: Interruption | null;
  stopReason?: string | null;
  error?: string | null;
  runId?: string;
};

/**
 * The state of a run in words: running, waiting for a verdict, or which of
 * the five exits it took (completed, failed, turn limit, budget, interrupted:
 * stopped by a person or awaiting a verdict) and why.
 *
 * @example
 * ```ts
 * import { statusWords } from "./inspector_html.ts";
 * console.log(statusWords({ status: "budget_exceeded", stopReason: "budget spent" }).label); // Budget spent
 * ```
 */
export function statusWords(run: StatusFields, stop?: StopRequest | null): StatusWords {
  const reason = run.stopReason ?? "";
  const i = run.interruption ?? null;
  switch (run.status) {
    case "running":
      return stop
        ? { tone: "stopping", label: "Stopping", detail: `Stop requested: ${stop.reason}` }
        : { tone: "running", label: "Running", detail: "" };
    case "completed":
      return { tone: "done", label: "Completed", detail: reason || "the model answered" };
    case "failed":
      return { tone: "failed", label: "Failed", detail: run.error ?? reason };
    case "max_turns_exceeded":
      return { tone: "limit", label: "Turn limit reached", detail: reason };
    case "budget_exceeded":
      return { tone: "limit", label: "Budget spent", detail: reason };
    case "interrupted": {
      if (i?.type === "approval") {
        const why = i.why === "uncertain_effect"
          ? "may or may not have run before a crash: decide whether to run it again"
          : "needs your approval";
        const holder = i.runId && i.runId !== run.runId ? " (in a subagent)" : "";
        return {
          tone: "waiting",
          label: "Waiting for your verdict",
          detail: `${i.toolName} ${why}${holder}`,
        };
      }
      if (i?.type === "cancelled") {
        return { tone: "stopped", label: "Stopped", detail: i.reason || reason };
      }
      if (i?.type === "max_turns") {
        return { tone: "limit", label: "Turn limit reached", detail: reason };
      }
      if (i?.type === "max_budget") return { tone: "limit", label: "Budget spent", detail: reason };
      return { tone: "stopped", label: "Interrupted", detail: reason };
    }
  }
  return { tone: "failed", label: String(run.status), detail: reason };
}

function badge(words: StatusWords): Html {
  return html`<span class="badge tone-${words.tone}">${words.label}</span>`;
}

/** The text of a run's task: its first user message. */
export function taskOf(messages: readonly ChatMessage[]): string {
  const m = messages.find((m) => m.role === "user");
  return m?.content ?? "";
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function shortId(id: string): string {
  const dot = id.indexOf(".");
  return dot > 0 ? id.slice(dot + 1) : id.slice(0, 8);
}

// ---------------------------------------------------------------------------
// The run list

/** A root run of the list with its task and how many subagents it has. */
export interface ListedRun {
  /** The root's summary. */
  run: RunSummary;
  /** Its task (first user message), possibly clipped. */
  task: string;
  /** Subagent runs seen for it. */
  subagents: number;
  /** The Stop recorded for its tree, if any. */
  stop: StopRequest | null;
}

/** Counts of the run list by how they read. */
export function listCounts(runs: readonly ListedRun[]): Record<StatusWords["tone"], number> {
  const counts = { running: 0, waiting: 0, done: 0, stopped: 0, limit: 0, failed: 0, stopping: 0 };
  for (const r of runs) counts[statusWords(r.run, r.stop).tone]++;
  return counts;
}

/**
 * The run list: counts by state, then one row per root run, newest first.
 *
 * @example
 * ```ts
 * import { renderRunList } from "./inspector_html.ts";
 * console.log(renderRunList([]).value.includes("No runs yet")); // true
 * ```
 */
export function renderRunList(runs: readonly ListedRun[]): Html {
  const c = listCounts(runs);
  const tally = [
    [c.running + c.stopping, "running", "running"],
    [c.waiting, "waiting for a verdict", "waiting"],
    [c.stopped, "stopped", "stopped"],
    [c.limit, "at a limit", "limit"],
    [c.failed, "failed", "failed"],
    [c.done, "completed", "done"],
  ] as const;
  const summary = html`<p class="tally">${
    tally.map(([n, label, tone]) =>
      html`<span class="tally-item tone-${tone}${n ? "" : " zero"}"><b>${n}</b> ${label}</span>`
    )
  }</p>`;
  if (!runs.length) {
    return html`${summary}<p class="empty">No runs yet. Start one with <code>POST /runs</code>.</p>`;
  }
  const rows = runs.map(({ run, task, subagents, stop }) => {
    const words = statusWords(run, stop);
    return html`
      <tr class="run-row tone-${words.tone}" data-run-id="${run.runId}">
        <td class="status">${badge(words)}${words.detail
          ? html`<div class="why">${clip(words.detail, 160)}</div>`
          : ""}</td>
        <td class="task"><a href="${runHref(run.runId)}">${clip(task, 140) ||
          "(no task)"}</a>${subagents
          ? html`<div class="sub">${subagents} subagent${subagents === 1 ? "" : "s"}</div>`
          : ""}</td>
        <td class="num cost">${formatUsd(run.costUsd)}</td>
        <td class="num">${run.turns}</td>
        <td class="model">${run.model ?? ""}</td>
        <td class="when">${time(run.createdAt)}</td>
      </tr>
    `;
  });
  return html`
    ${summary}<table class="runs">
      <thead>
        <tr>
          <th>State</th>
          <th>Task</th>
          <th class="num">Cost so far</th>
          <th class="num">Turns</th>
          <th>Model</th>
          <th>Started</th>
        </tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}

// ---------------------------------------------------------------------------
// One run

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
}

function prettyArgs(args: unknown): string {
  if (typeof args === "string") {
    try {
      return JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      return args;
    }
  }
  return JSON.stringify(args, null, 2) ?? String(args);
}

/** The head of the run page: task, state in words, cost, turns, answer or error. */
export function renderSummary(d: RunPageData): Html {
  const { run } = d;
  const words = statusWords(run, run.status === "running" ? d.stop : null);
  const isRoot = run.runId === run.rootId;
  const task = taskOf(d.messages);
  const tokens = run.usage.prompt_tokens + run.usage.completion_tokens;
  const lease = run.lease
    ? html`
      <div>
        <dt>Executing on</dt>
        <dd>${run.lease.owner}</dd>
      </div>
    `
    : "";
  return html`<div class="head tone-${words.tone}">
<div class="state">${badge(words)}${
    words.detail ? html`<p class="why">${words.detail}</p>` : ""
  }</div>
<h1 class="task-title">${clip(task, 300) || "(no task)"}</h1>
${
    isRoot ? "" : html`
      <p
        class="crumb">Subagent of <a href="${runHref(run.parentId ?? run.rootId)}">${shortId(
          run.parentId ?? run.rootId,
        )}</a> · tree <a href="${runHref(run.rootId)}">${shortId(run.rootId)}</a></p>
    `
  }
<dl class="facts">
<div><dt>Cost so far</dt><dd class="cost">${formatUsd(run.costUsd)}${
    run.childCostUsd
      ? html`
        <span class="muted">(${formatUsd(run.childCostUsd)} by subagents)</span>
      `
      : ""
  }</dd></div>
<div><dt>Turns</dt><dd>${run.turns} of ${run.limits.maxTurns}</dd></div>
<div><dt>Budget</dt><dd>${formatUsd(run.limits.maxBudgetUsd)}</dd></div>
<div><dt>Tokens</dt><dd>${tokens.toLocaleString("en-US")}</dd></div>
<div><dt>Tool runs</dt><dd>${run.toolRuns}</dd></div>
<div><dt>Model</dt><dd>${run.model ?? "—"}</dd></div>
<div><dt>Started</dt><dd>${time(run.createdAt)}</dd></div>
${lease}
</dl>
${
    run.output !== null
      ? html`
        <div class="answer">
          <h2>Answer</h2>
          <pre>${run.output}</pre>
        </div>
      `
      : ""
  }
${
    run.error !== null
      ? html`
        <div class="failure">
          <h2>Error</h2>
          <pre>${run.error}</pre>
        </div>
      `
      : ""
  }
</div>`;
}

/**
 * The controls of the tree: the call awaiting a verdict with Approve and
 * Reject (with a reason), Stop for a running tree, Resume for a stopped one.
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
          : html`subagent <a href="${runHref(holder)}">${shortId(holder)}</a>`}.</p>
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
  } else if (root.status === "interrupted" && i?.type === "cancelled") {
    forms.push(html`
      <form class="resume" data-action="resume" data-root-id="${root.runId}">
        <div class="row"><button type="submit">Resume the tree</button></div>
      </form>
    `);
  }
  if (!forms.length) {
    return html`<p class="muted">The tree awaits nothing (${
      statusWords(root).label.toLowerCase()
    }).</p>`;
  }
  return html`${forms}`;
}

/** The tree: one row per run with state, turns and cost, and a slot for its tools' progress. */
export function renderTree(d: RunPageData): Html {
  const rows = d.nodes.map((n) => {
    const words = statusWords(n, n.status === "running" ? d.stop : null);
    const here = n.runId === d.run.runId;
    return html`
      <li class="node tone-${words.tone}${here ? " here" : ""}" data-node="${n
        .runId}" data-status="${n.status}"
        data-depth="${n.depth}">
        <div class="node-line">
      <span class="indent" data-depth="${Math.min(n.depth, 6)}"></span>
      ${badge(words)}
      <a class="node-id" href="${runHref(n.runId)}" title="${n.runId}">${n.depth === 0
        ? "root"
        : shortId(n.runId)}</a>
      <span class="node-why">${clip(words.detail, 120)}</span>
      <span class="node-num">${n.turns} turn${n.turns === 1 ? "" : "s"}</span>
      <span class="node-num cost">${formatUsd(n.costUsd)}</span>
        </div>
        <div class="tools" data-tools-for="${n.runId}"></div>
      </li>
    `;
  });
  return html`<ul class="tree">${rows}</ul>`;
}

function messageBlock(m: ChatMessage, index: number): Html {
  switch (m.role) {
    case "system":
      return html`
        <li class="msg system">
          <details>
            <summary><span class="role">system prompt</span></summary>
            <pre>${m.content}</pre>
          </details>
        </li>
      `;
    case "user":
      return html`<li class="msg user"><span class="role">${
        index <= 1 ? "task" : "user"
      }</span><pre>${m.content}</pre></li>`;
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) =>
        html`
          <div
            class="call"><span class="call-name">${c.function.name}</span> <code class="call-id">${c
              .id}</code><pre class="args">${prettyArgs(c.function.arguments)}</pre></div>
        `
      );
      return html`<li class="msg assistant"><span class="role">model</span>${
        m.content ? html`<pre>${m.content}</pre>` : ""
      }${calls}</li>`;
    }
    case "tool": {
      const long = m.content.length > 1500;
      const body = long
        ? html`
          <details>
            <summary>${clip(m.content, 160)}</summary>
            <pre>${m.content}</pre>
          </details>
        `
        : html`<pre>${m.content}</pre>`;
      return html`
        <li
          class="msg tool"><span class="role">result of <b>${m.name}</b> <code class="call-id">${m
            .tool_call_id}</code></span>${body}</li>
      `;
    }
  }
}

/**
 * A transcript, oldest first: the system prompt folded, the task, the model's
 * replies with their tool calls, and each tool result.
 *
 * @example
 * ```ts
 * import { renderTranscript } from "./inspector_html.ts";
 * console.log(renderTranscript([{ role: "user", content: "<b>hi</b>" }]).value.includes("&lt;b&gt;")); // true
 * ```
 */
export function renderTranscript(messages: readonly ChatMessage[]): Html {
  if (!messages.length) return html`<p class="muted">No messages.</p>`;
  return html`<ol class="transcript">${messages.map(messageBlock)}</ol>`;
}

// ---------------------------------------------------------------------------
// Pages

/** Options of {@link renderPage}. */
export interface PageOptions {
  /** The `<title>`. */
  title: string;
  /** `list` or `run`: what the script enhances. */
  page: "list" | "run";
  /** The run of a run page. */
  runId?: string;
  /** The main content. */
  body: Html;
  /** Set when the data could not be shown because the bearer token is missing. */
  locked?: boolean;
}

/** A whole page: head, header, the token form (used by the script), the content. */
export function renderPage(o: PageOptions): Html {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${o.title}</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/ui/static/inspector.css">
        <script src="/ui/static/inspector.js" defer></script>
      </head>
      <body data-page="${o.page}" ${o.runId
        ? html`
          data-run-id="${o.runId}"
        `
        : ""}${o.locked
        ? html`
          data-locked="true"
        `
        : ""}>
        <header class="top">
          <a class="brand" href="/">reins <span>inspector</span></a>
          <nav><a href="/">All runs</a></nav>
          <span class="live" id="live" hidden></span>
        </header>
        <form id="auth" class="auth" hidden>
          <label
            for="auth-token">This server needs its bearer token (<code>REINS_TOKEN</code>). It stays in this tab only.</label>
          <div class="row">
            <input id="auth-token" name="token" type="password" autocomplete="off" required>
            <button type="submit">Use token</button>
          </div>
          <p class="error" id="auth-error" role="alert" hidden></p>
        </form>
        <main>
    ${o.body}
        </main>
      </body>
    </html>
  `;
}

/** The note shown instead of the data when the bearer token is needed. */
export function lockedNote(): Html {
  return html`
    <div
      class="locked"><p>This server needs a bearer token. The page asks for it and sends it as <code>Authorization: Bearer</code>.</p>
    <noscript><p>Without JavaScript the page cannot send the token: use the API with <code>Authorization: Bearer &lt;token&gt;</code>.</p></noscript></div>
  `;
}

/** The run list page's content (`list` is null when locked). */
export function renderListMain(list: Html | null): Html {
  return html`
    <section class="card">
      <div class="card-head">
        <h1>Runs</h1>
        <p class="muted">Newest first. Costs include subagents.</p>
      </div>
      <div id="runs">${list ?? lockedNote()}</div>
    </section>
  `;
}

/** The run page's content (`d` is null when locked). */
export function renderRunMain(d: RunPageData | null): Html {
  if (!d) {
    return html`
      <section class="card" id="summary">${lockedNote()}</section>
      <section class="card" id="controls-card" hidden>
        <div id="controls"></div>
        <p class="error" id="controls-error" role="alert" hidden></p>
      </section>
      <div class="columns">
        <section class="card">
          <h2>Tree</h2>
          <div id="tree"></div>
        </section>
        <section class="card">
          <h2>Live activity</h2>
          <ol id="activity" class="activity"></ol>
        </section>
      </div>
      <section class="card">
        <h2>Transcript</h2>
        <div id="transcript"></div>
      </section>
    `;
  }
  return html`
    <section class="card" id="summary">${renderSummary(d)}</section>
    <section class="card controls-card" id="controls-card">
      <noscript><p class="muted">Approve, Reject and Stop need JavaScript (or the API).</p></noscript>
      <div id="controls" class="needs-js">${renderControls(d)}</div>
      <p class="error" id="controls-error" role="alert" hidden></p>
    </section>
    <div class="columns">
      <section class="card">
        <h2>Tree</h2>
        <div id="tree">${renderTree(d)}</div>
      </section>
      <section class="card needs-js">
        <h2>Live activity</h2>
        <ol id="activity" class="activity"></ol>
      </section>
    </div>
    <section class="card">
      <h2>Transcript <span class="muted" id="message-count">(${d.messages
        .length} messages)</span></h2>
      <div id="transcript">${renderTranscript(d.messages)}</div>
    </section>
  `;
}

/** A page for an error (unknown run, bad id). */
export function renderErrorMain(title: string, message: string): Html {
  return html`
    <section class="card">
      <h1>${title}</h1>
      <p class="error">${message}</p>
      <p><a href="/">All runs</a></p>
    </section>
  `;
}
