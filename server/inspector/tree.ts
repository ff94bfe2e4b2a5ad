/**
 * The tree of a run page: one row per run with its state, turns and cost,
 * and a slot the script fills with its tools' progress.
 *
 * @module
 */
import { clip, formatUsd, runHref, runLabel } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { RunPageData, TreeNodeView } from "./run_page.ts";
import { percentOf } from "../../harness/spend_text.ts";
import { badge, statusWords } from "./status_words.ts";
import { renderToolRow } from "./tool_rows.ts";

/**
 * A node's share of the tree's spend: its own model calls (its subagents
 * have their own rows), as a percentage and a small bar.
 */
function share(n: TreeNodeView, total: number): Html {
  const own = Math.max(0, n.costUsd - n.childCostUsd);
  const part = total > 0 ? own / total : 0;
  const words = `own calls ${formatUsd(own)}: ${percentOf(own, total)} of the tree's ${
    formatUsd(total)
  }`;
  return html`<span class="node-share" title="${words}"><svg class="share-bar" viewBox="0 0 40 6"
    aria-hidden="true"><rect class="share-room" width="40" height="6"></rect><rect
    class="share-part" width="${Math.round(part * 4000) / 100}" height="6"></rect></svg>${
    total > 0 ? Math.round(part * 100) : 0
  }%</span>`;
}

/** The tree: one row per run with state, turns and cost, and a slot for its tools' progress. */
export function renderTree(d: RunPageData): Html {
  const total = d.nodes[0]?.costUsd ?? 0;
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
      ${share(n, total)}
        </div>
        <div class="tools" data-tools-for="${n.runId}">${(d.tools?.[n.runId] ?? []).map(
          renderToolRow,
        )}</div>
      </li>
    `;
  });
  return html`<ul class="tree">${rows}</ul>`;
}
