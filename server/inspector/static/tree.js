// The runs of the tree as event sources, and what each tool is doing under
// its run: rows from live events merged with the rows the server rendered.
import { argsText, el, secs } from "./words.js";

/** runId -> { runId, label, after, status, streaming, polling, tools, serverRows } */
export const sources = new Map();

/** The source of run `id` (at `depth` in the tree), made on first sight. */
export function source(id, depth) {
  let s = sources.get(id);
  if (!s) {
    const dot = id.indexOf(".");
    s = {
      runId: id,
      label: depth === 0 ? "root" : dot > 0 ? id.slice(dot + 1) : id.slice(0, 8),
      after: -1,
      status: null,
      streaming: false,
      polling: false,
      tools: new Map(), // callId -> row, from live events
      serverRows: new Map(), // callId -> row, from the server's tree
    };
    sources.set(id, s);
  }
  return s;
}

/** A call's row once its result (or its suspension) is known. */
function resultRow(x, ev) {
  if (ev.suspended) {
    // No result: the call holds its run (its subagent awaits a verdict).
    const i = ev.suspended.interruption;
    x.state = i.type === "approval" ? "child-waiting" : "stopped";
    x.label = i.type === "approval"
      ? "waits on your verdict on " + i.toolName + " in a subagent"
      : ev.suspended.reason;
    return x;
  }
  x.state = ev.ok ? "ok" : "failed";
  if (ev.ok) x.fraction = 1;
  x.label = ev.ok
    ? (ev.cached ? "from cache" : ev.replayed ? "replayed, $0" : "done in " + secs(ev.ms))
    : ev.error || "failed";
  return x;
}

/** Rows still running when their run stops (or goes elsewhere) stop; the label keeps how far. */
function stopRows(t, ev) {
  t.forEach(function (v) {
    if (v.state === "running") v.state = "stopped";
    if (
      ev.type === "run_stopped" && (v.state === "waiting" || v.state === "child-waiting") &&
      ev.status !== "interrupted"
    ) v.state = "stopped";
  });
}

/** Updates the live tool rows of source `s` with event `ev`, and shows them. */
export function tools(s, ev) {
  const t = s.tools;
  let x;
  switch (ev.type) {
    case "turn":
      t.forEach(function (v, k) {
        if (v.state !== "running" && v.state !== "waiting") t.delete(k);
      });
      break;
    case "tool_start":
      t.set(ev.callId, {
        name: ev.toolName,
        state: "running",
        label: argsText(ev.args, 80),
        fraction: null,
      });
      break;
    case "tool_progress":
      x = t.get(ev.callId) || { name: ev.toolName, state: "running", fraction: null };
      x.label = ev.label;
      if (typeof ev.fraction === "number") x.fraction = ev.fraction;
      t.set(ev.callId, x);
      break;
    case "tool_result":
      x = t.get(ev.callId) || { name: ev.toolName, fraction: null, label: "" };
      t.set(ev.callId, resultRow(x, ev));
      break;
    case "approval_required":
      t.set(ev.callId, {
        name: ev.toolName,
        state: "waiting",
        label: "awaits your verdict",
        fraction: null,
      });
      break;
    case "run_handed_over": // the run goes on elsewhere: a call cut short here starts again there
    case "run_stopped":
      stopRows(t, ev);
      break;
    default:
      return;
  }
  renderTools(s);
}

const STATE_WORDS = {
  running: "running",
  ok: "done",
  failed: "failed",
  stopped: "stopped",
  waiting: "waiting",
  "child-waiting": "waiting",
  rejected: "rejected",
};
// What only the server knows (no event says it): a rejection, a call held
// by its subagent's verdict, and that a call no longer awaits one.
const SERVER_WINS = { rejected: true, waiting: true, "child-waiting": true };

/** Reads the tool rows the server put in the tree into each run's source. */
export function readServerRows() {
  document.querySelectorAll("[data-tools-for]").forEach(function (slot) {
    const node = slot.closest("[data-depth]");
    const s = source(slot.dataset.toolsFor, node ? Number(node.dataset.depth) : 1);
    s.serverRows = new Map();
    slot.querySelectorAll(".tool[data-call-id]").forEach(function (row) {
      s.serverRows.set(row.dataset.callId, {
        name: row.querySelector(".tool-name").textContent,
        state: row.dataset.state,
        label: row.querySelector(".tool-label").textContent,
        fraction: row.dataset.state === "ok" ? 1 : null,
      });
    });
  });
}

function rowsOf(s) {
  const rows = new Map(s.tools);
  // A verdict awaited by a live row is over unless the server still says so.
  rows.forEach(function (v, callId) {
    const known = s.serverRows.get(callId);
    if (
      (v.state === "waiting" || v.state === "child-waiting") &&
      !(known && known.state === v.state)
    ) rows.delete(callId);
  });
  s.serverRows.forEach(function (v, callId) {
    if (!rows.has(callId) || SERVER_WINS[v.state]) rows.set(callId, v);
  });
  return rows;
}

/** Shows the tool rows of source `s` under its run in the tree. */
export function renderTools(s) {
  const slot = document.querySelector('[data-tools-for="' + CSS.escape(s.runId) + '"]');
  if (!slot) return;
  const rows = [];
  rowsOf(s).forEach(function (v, callId) {
    const row = el("div", "tool state-" + v.state);
    row.dataset.callId = callId;
    row.dataset.state = v.state;
    const bar = document.createElement("progress");
    bar.max = 1;
    if (v.fraction !== null && v.fraction !== undefined) bar.value = v.fraction;
    else if (v.state !== "running") bar.value = 0;
    row.append(
      el("span", "tool-name", v.name),
      bar,
      el("span", "tool-label", v.label || ""),
      el("span", "tool-state", STATE_WORDS[v.state] || v.state),
    );
    row.querySelector(".tool-label").title = v.label || "";
    rows.push(row);
  });
  slot.replaceChildren.apply(slot, rows);
}
