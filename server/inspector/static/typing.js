// The model's words as they stream (text_delta events): typed into the run's
// node in the tree and, for the page's own run, into a reply being written at
// the end of the transcript. The committed reply (after the next refresh)
// replaces them.
import { $ } from "./api.js";
import { el } from "./words.js";

/** Shows `text_delta` event `ev` of source `s`; a turn or a stop ends the reply being typed. */
export function typing(s, ev, pageRunId) {
  if (ev.type === "text_delta") {
    // A reset: the call is retried, the words typed so far were void.
    if (s.typingTurn !== ev.turn || ev.reset) s.typing = "";
    s.typingTurn = ev.turn;
    s.typing = (s.typing || "") + ev.delta;
  } else if (ev.type === "turn" || ev.type === "run_stopped" || ev.type === "run_handed_over") {
    s.typing = "";
  } else return;
  renderTyping(s, pageRunId);
}

/** Draws what source `s` is typing (or removes it when it types nothing). */
export function renderTyping(s, pageRunId) {
  const text = s.typing || "";
  const slot = document.querySelector('[data-tools-for="' + CSS.escape(s.runId) + '"]');
  if (slot) {
    let line = slot.parentElement.querySelector(":scope > [data-typing-for]");
    if (!text) {
      if (line) line.remove();
    } else {
      if (!line) {
        line = el("div", "typing");
        line.dataset.typingFor = s.runId;
        slot.before(line);
      }
      // The node shows the last words; the transcript has the whole reply.
      line.textContent = text.length > 160 ? "…" + text.slice(-160) : text;
    }
  }
  if (s.runId !== pageRunId) return;
  const list = $("transcript") && $("transcript").querySelector("ol.transcript");
  if (!list) return;
  let msg = list.querySelector(":scope > li.msg.typing");
  if (!text) {
    if (msg) msg.remove();
    return;
  }
  if (!msg) {
    msg = el("li", "msg assistant typing");
    msg.append(el("span", "role", "model · writing"), el("pre", "", ""));
    list.append(msg);
  }
  msg.querySelector("pre").textContent = text;
}
