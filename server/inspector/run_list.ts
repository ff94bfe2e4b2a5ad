/**
 * The run list: counts by state, then one row per root run, newest first.
 *
 * @module
 */
import type { RunSummary } from "../../kv/kv_run_store.ts";
import type { StopRequest } from "../../kv/stop_record.ts";
import { clip, formatUsd, runHref, time } from "./format.ts";
import { type Html, html } from "./html.ts";
import { badge, type StatusWords, statusWords } from "./status_words.ts";

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
 * import { renderRunList } from "./run_list.ts";
 * console.log(String(renderRunList([])).includes("No runs yet")); // true
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
    return html`${summary}<p class="empty">No runs yet. Start one above, or with <code>POST /runs</code>.</p>`;
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
        <td class="agent">${run.agent ?? ""}</td>
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
          <th>Agent</th>
          <th>Model</th>
          <th>Started</th>
        </tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}
