/**
 * The tree of a run page: one row per run with its state, turns and cost,
 * and a slot the script fills with its tools' progress.
 *
 * @module
 */
import { clip, formatUsd, runHref, runLabel } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { RunPageData } from "./run_page.ts";
import { badge, statusWords } from "./status_words.ts";
import { renderToolRow } from "./tool_rows.ts";

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
      <a class="node-id" href="${runHref(n.runId)}" title="${n.runId}">${n.agent
        ? html`
          <span class="node-agent">${n.agent}</span>
        `
        : ""}${n.depth === 0 ? "root" : runLabel(n.runId)}</a>
      <span class="node-why">${clip(words.detail, 120)}</span>
      <span class="node-num">${n.turns} turn${n.turns === 1 ? "" : "s"}</span>
      <span class="node-num cost">${formatUsd(n.costUsd)}</span>
        </div>
        <div class="tools" data-tools-for="${n.runId}">${(d.tools?.[n.runId] ?? []).map(
          renderToolRow,
        )}</div>
      </li>
    `;
  });
  return html`<ul class="tree">${rows}</ul>`;
}
