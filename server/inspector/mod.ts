/**
 * The run inspector's HTML, rendered on the server: the run list, a run's
 * summary, tree, controls and transcript, and whole pages; and the page's
 * script and stylesheet. Every value goes through `html` (Hono's escaping
 * tag), so nothing from a run is ever markup. The script (ES modules under
 * `static/`, `main.js` the entry) fetches these same fragments with the
 * bearer token and streams live events; without JavaScript the run list and
 * the transcript still read.
 *
 * @module
 */
export { ASSETS } from "./assets.ts";
export { clip, formatTime, formatUsd, prettyArgs, runHref, runLabel, taskOf } from "./format.ts";
export { escapeHtml, type Html, html, raw } from "./html.ts";
export {
  lockedNote,
  type PageOptions,
  renderErrorMain,
  renderListMain,
  renderNewRun,
  renderPage,
  renderRunMain,
} from "./page.ts";
export { listCounts, type ListedRun, renderRunList } from "./run_list.ts";
export { renderControls, renderSummary, type RunPageData, type TreeNodeView } from "./run_page.ts";
export { type StatusFields, type StatusWords, statusWords } from "./status_words.ts";
export { renderTranscript } from "./transcript.ts";
export { renderReplyBox, transcriptOptions } from "./conversation.ts";
export {
  loadToolRows,
  renderToolRow,
  TOOL_STATE_WORDS,
  type ToolRow,
  toolRows,
} from "./tool_rows.ts";
export { renderTree } from "./tree.ts";
