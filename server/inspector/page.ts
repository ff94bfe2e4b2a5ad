/**
 * Whole pages: the frame (head, header, the token form the script uses) and
 * the content of the list, a run, or an error.
 *
 * @module
 */
import { type Html, html } from "./html.ts";
import { renderControls, renderSummary, type RunPageData } from "./run_page.ts";
import { renderTree } from "./tree.ts";
import { renderTranscript } from "./transcript.ts";
import { transcriptOptions } from "./conversation.ts";
import { renderBudget } from "./budget_picture.ts";

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
        <script type="module" src="/ui/static/main.js"></script>
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

/**
 * The form that starts a run of one of `agents` (the script posts it to
 * `POST /runs`; without JavaScript it is hidden).
 */
export function renderNewRun(agents: readonly string[], defaultAgent?: string): Html {
  const options = agents.map((name) =>
    html`
      <option value="${name}" ${name === defaultAgent ? " selected" : ""}>${name}</option>
    `
  );
  return html`
    <section class="card needs-js">
      <form id="new-run" class="new-run">
        <h2>Start a run</h2>
        <label>Agent <select id="new-run-agent" name="agent">${options}</select></label>
        <label>Task <textarea id="new-run-task" name="task" rows="2" required></textarea></label>
        <button type="submit">Start</button>
        <p class="error" id="new-run-error" role="alert" hidden></p>
      </form>
    </section>
  `;
}

/** The run list page's content (`list` is null when locked), after `before` (the new-run form). */
export function renderListMain(list: Html | null, before: Html | string = ""): Html {
  return html`
    ${before}<section class="card">
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
      <section class="card budget-card" id="budget"></section>
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
    <section class="card budget-card" id="budget">${d.spend
      ? renderBudget(d.spend, d.root.runId)
      : ""}</section>
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
      <div id="transcript">${renderTranscript(d.messages, d.repairs, transcriptOptions(d))}</div>
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
