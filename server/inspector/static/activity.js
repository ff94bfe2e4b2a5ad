// The activity log, newest first: one line per event, a call's progress
// updated in place.
import { $ } from "./api.js";
import { argsText, clock, el, exitWords, secs, usd } from "./words.js";

const LOG_MAX = 400;

// A call holding its run without a result: what it waits on.
function suspendedWords(ev) {
  const i = ev.suspended.interruption;
  if (i.type !== "approval") return "stopped: " + ev.suspended.reason;
  return "waits: " + i.toolName + " in a subagent awaits your verdict";
}

// "Budget spent: budget spent: $…" and "Waiting for your verdict: awaiting a verdict: …"
// said the same thing twice: the exit's words, then the reason without what repeats them.
function stopWords(ev) {
  const words = exitWords(ev);
  const reason = String(ev.reason || "").replace(/^awaiting a verdict: /, "");
  if (!reason) return words;
  if (reason.toLowerCase().startsWith(words.toLowerCase())) {
    return words + reason.slice(words.length);
  }
  return words + ": " + reason;
}

function describe(ev) {
  switch (ev.type) {
    case "turn":
      return "turn " + ev.turn + " · " + ev.total_tokens + " tokens · +" + usd(ev.turnCostUsd) +
        " → " + usd(ev.costUsd) + " · " + ev.finish + " · " + secs(ev.ms);
    case "compaction":
      return "compaction " + ev.compaction + " (" +
        (ev.strategy === "elide"
          ? ev.elided + " old results elided"
          : "turns 1–" + ev.summarizedTurns + " summarized") +
        ") · prompt " + ev.tokensBefore +
        " → " + ev.tokensAfter + " tokens · +" + usd(ev.compactionCostUsd) + " → " +
        usd(ev.costUsd);
    case "tool_start": {
      const args = argsText(ev.args, 80);
      return ev.toolName + " started" + (args ? " · " + args : "");
    }
    case "tool_progress":
      return ev.toolName + ": " + ev.label +
        (typeof ev.fraction === "number" ? " (" + Math.round(ev.fraction * 100) + "%)" : "");
    case "tool_result":
      if (ev.suspended) return ev.toolName + " " + suspendedWords(ev);
      return ev.toolName + (ev.ok ? " done" : " failed: " + (ev.error || "")) +
        (ev.cached
          ? " (from cache)"
          : ev.replayed
          ? " (replayed from the source run, $0)"
          : " in " + secs(ev.ms));
    case "user_message":
      return "you: " + argsText(JSON.stringify(ev.content), 120);
    case "approval_required":
      return ev.toolName + " awaits your verdict (" +
        (ev.why === "uncertain_effect" ? "its effect is uncertain" : "needs approval") + ") " +
        argsText(ev.args, 80);
    case "run_handed_over":
      return "handed over by " + ev.by + " (it goes on elsewhere): " + ev.reason + " · " +
        ev.turns + (ev.turns === 1 ? " turn · " : " turns · ") + usd(ev.costUsd);
    case "run_stopped":
      return stopWords(ev) + " · " + ev.turns +
        (ev.turns === 1 ? " turn · " : " turns · ") +
        usd(ev.costUsd);
  }
  return ev.type;
}

/** Adds event `ev` of source `s` to the log, in time order. */
export function log(s, ev) {
  const list = $("activity");
  if (!list) return;
  const text = describe(ev);
  if (ev.type === "tool_progress") {
    // One line per call's progress, updated in place.
    const prev = list.querySelector(
      'li[data-progress="' + CSS.escape(s.runId + "|" + ev.callId) + '"]',
    );
    if (prev) {
      prev.querySelector(".ev-text").textContent = text;
      return;
    }
  }
  const li = el(
    "li",
    "ev ev-" + ev.type + (ev.type === "tool_result" && !ev.ok && !ev.suspended ? " failed" : ""),
  );
  li.dataset.at = ev.at;
  if (ev.type === "tool_progress") li.dataset.progress = s.runId + "|" + ev.callId;
  li.append(
    el("span", "ev-time", clock(ev.at)),
    el("span", "ev-node", s.label),
    el("span", "ev-text", text),
  );
  li.querySelector(".ev-node").title = s.runId;
  let before = list.firstElementChild;
  while (before && before.dataset.at > ev.at) before = before.nextElementSibling;
  list.insertBefore(li, before);
  while (list.children.length > LOG_MAX) list.lastElementChild.remove();
}
