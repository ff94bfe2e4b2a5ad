// One run's page: refreshes the server-rendered parts (summary, controls,
// tree, transcript), streams the events of running runs (at most
// MAX_STREAMS at once), polls the others when their status changes.
import { $, apiJson, enc, setLive, sleep } from "./api.js";
import { log } from "./activity.js";
import { handleControls } from "./controls.js";
import { handleConversation } from "./conversation.js";
import { poll, stream } from "./events.js";
import { readServerRows, renderTools, source, sources, tools } from "./tree.js";
import { renderTyping, typing } from "./typing.js";

const MAX_STREAMS = 4;

/** Runs the page of run `runId`, forever. */
export async function runPage(runId) {
  let streams = 0;
  let last = { summary: null, controls: null, tree: null, count: -1 };
  let running = true;
  let refreshTimer = null, inFlight = null, again = false;

  function scheduleRefresh(ms) {
    if (refreshTimer) return;
    refreshTimer = setTimeout(function () {
      refreshTimer = null;
      refresh();
    }, ms == null ? 250 : ms);
  }

  async function refresh() {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async function () {
      try {
        apply(await apiJson("/ui/parts/runs/" + enc(runId)));
      } catch (e) {
        setLive("offline: " + e.message, false);
        if (e.status === 404) $("summary").textContent = e.message;
      }
    })();
    await inFlight;
    inFlight = null;
    if (again) {
      again = false;
      scheduleRefresh(0);
    }
  }

  function apply(d) {
    setLive("live", true);
    if (d.summary !== last.summary) $("summary").innerHTML = d.summary;
    if (d.controls !== last.controls) replaceKeepingInput($("controls"), d.controls);
    $("controls-card").hidden = false;
    $("controls").classList.remove("needs-js");
    if (d.tree !== last.tree) {
      $("tree").innerHTML = d.tree;
      readServerRows();
      sources.forEach(function (s) {
        renderTools(s);
        renderTyping(s, runId);
      });
    }
    if (d.messageCount !== last.count) {
      $("transcript").innerHTML = d.transcript;
      const count = $("message-count");
      if (count) count.textContent = "(" + d.messageCount + " messages)";
      if (sources.has(runId)) renderTyping(sources.get(runId), runId);
    }
    last = { summary: d.summary, controls: d.controls, tree: d.tree, count: d.messageCount };
    running = d.nodes.some(function (n) {
      return n.status === "running";
    });
    d.nodes.forEach(function (n) {
      const s = source(n.runId, n.depth);
      const changed = s.status !== n.status;
      s.status = n.status;
      if (s.streaming) return;
      if (n.status === "running" && streams < MAX_STREAMS) {
        streams++;
        stream(s, onEvent);
      } else if (changed || n.status === "running") poll(s, onEvent);
    });
  }

  function onEvent(s, seq, ev) {
    if (!(seq > s.after)) return;
    s.after = seq;
    // Streamed words are typed where they belong, not logged one by one.
    typing(s, ev, runId);
    if (ev.type === "text_delta") return;
    log(s, ev);
    tools(s, ev);
    if (ev.type !== "tool_progress" && ev.type !== "tool_start") scheduleRefresh();
  }

  handleControls(refresh);
  handleConversation(refresh);
  await refresh();
  for (;;) {
    await sleep(running ? 1500 : 4000);
    if (!document.hidden) await refresh();
  }
}

function replaceKeepingInput(target, markup) {
  // Keep what was typed (and the focus) in forms that survive the refresh.
  const keep = {};
  let focused = null;
  target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {
    const f = input.form;
    const key = f.dataset.action + "|" + (f.dataset.callId || "") + "|" + input.name;
    keep[key] = input.value;
    if (document.activeElement === input) focused = key;
  });
  target.innerHTML = markup;
  target.querySelectorAll("form[data-action] input[name]").forEach(function (input) {
    const f = input.form;
    const key = f.dataset.action + "|" + (f.dataset.callId || "") + "|" + input.name;
    if (key in keep) input.value = keep[key];
    if (key === focused) input.focus();
  });
}
