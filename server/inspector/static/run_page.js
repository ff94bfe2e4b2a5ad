// One run's page: refreshes the server-rendered parts (summary, budget,
// controls, tree, transcript), streams the events of running runs (at most
// MAX_STREAMS at once), polls the others when their status changes.
import { $, apiJson, enc, setLive, sleep } from "./api.js";
import { log } from "./activity.js";
import { followBudget } from "./budget.js";
import { clearDoneNotice, forgetKeptKey, handleControls } from "./controls.js";
import { handleConversation } from "./conversation.js";
import { poll, stream } from "./events.js";
import { readServerRows, renderTools, source, sources, tools } from "./tree.js";
import { renderTyping, typing } from "./typing.js";

const MAX_STREAMS = 4;

/** The page of run `runId`: what was last shown, and what is being watched. */
function pageState(runId) {
  return {
    runId: runId,
    streams: 0,
    last: { summary: null, budget: null, controls: null, tree: null, count: -1 },
    running: true,
    timer: null,
    inFlight: null,
    again: false,
  };
}

/** Refreshes the parts soon (once, however often it is asked before then). */
function scheduleRefresh(p, ms) {
  if (p.timer) return;
  p.timer = setTimeout(function () {
    p.timer = null;
    refresh(p);
  }, ms == null ? 250 : ms);
}

async function refresh(p) {
  if (p.inFlight) {
    p.again = true;
    return p.inFlight;
  }
  p.inFlight = (async function () {
    try {
      apply(p, await apiJson("/ui/parts/runs/" + enc(p.runId)));
    } catch (e) {
      setLive("offline: " + e.message, false);
      if (e.status === 404) $("summary").textContent = e.message;
    }
  })();
  await p.inFlight;
  p.inFlight = null;
  if (p.again) {
    p.again = false;
    scheduleRefresh(p, 0);
  }
}

/** Puts the parts that changed on the page. */
function showParts(p, d) {
  const last = p.last;
  if (d.summary !== last.summary) $("summary").innerHTML = d.summary;
  if (d.budget !== last.budget) $("budget").innerHTML = d.budget || "";
  if (d.controls !== last.controls) {
    replaceKeepingInput($("controls"), d.controls);
    // "Approved: the tree continues" is stale once the tree waits or stops again.
    if (last.controls !== null && d.rootStatus !== "running") clearDoneNotice();
    if (last.controls !== null) forgetKeptKey();
  }
  $("controls-card").hidden = false;
  $("controls").classList.remove("needs-js");
  if (d.tree !== last.tree) {
    $("tree").innerHTML = d.tree;
    readServerRows();
    sources.forEach(function (s) {
      renderTools(s);
      renderTyping(s, p.runId);
    });
  }
  if (d.messageCount !== last.count) {
    $("transcript").innerHTML = d.transcript;
    const count = $("message-count");
    if (count) count.textContent = "(" + d.messageCount + " messages)";
    if (sources.has(p.runId)) renderTyping(sources.get(p.runId), p.runId);
  }
  p.last = {
    summary: d.summary,
    budget: d.budget,
    controls: d.controls,
    tree: d.tree,
    count: d.messageCount,
  };
}

function apply(p, d) {
  setLive("live", true);
  showParts(p, d);
  p.running = d.nodes.some(function (n) {
    return n.status === "running";
  });
  d.nodes.forEach(function (n) {
    const s = source(n.runId, n.depth);
    const changed = s.status !== n.status;
    s.status = n.status;
    if (s.streaming) return;
    const onEvent = function (s, seq, ev) {
      eventOf(p, s, seq, ev);
    };
    if (n.status === "running" && p.streams < MAX_STREAMS) {
      p.streams++;
      stream(s, onEvent);
    } else if (changed || n.status === "running") poll(s, onEvent);
  });
}

function eventOf(p, s, seq, ev) {
  if (!(seq > s.after)) return;
  s.after = seq;
  // Streamed words are typed where they belong, not logged one by one.
  typing(s, ev, p.runId);
  if (ev.type === "text_delta") return;
  log(s, ev);
  tools(s, ev);
  if (ev.type !== "tool_progress" && ev.type !== "tool_start") scheduleRefresh(p);
}

/** Runs the page of run `runId`, forever. */
export async function runPage(runId) {
  const p = pageState(runId);
  handleControls(function () {
    return refresh(p);
  });
  handleConversation(function () {
    return refresh(p);
  });
  followBudget();
  await refresh(p);
  for (;;) {
    await sleep(p.running ? 1500 : 4000);
    if (!document.hidden) await refresh(p);
  }
}

function replaceKeepingInput(target, markup) {
  // Keep what was typed (and the focus) in forms that survive the refresh.
  const keep = {};
  let focused = null;
  const key = function (input) {
    const f = input.form;
    return f.dataset.action + "|" + (f.dataset.callId || "") + "|" + input.name;
  };
  target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {
    keep[key(input)] = input.value;
    if (document.activeElement === input) focused = key(input);
  });
  target.innerHTML = markup;
  target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {
    if (key(input) in keep) input.value = keep[key(input)];
    if (key(input) === focused) input.focus();
  });
}
