// The reply box (a follow-up, answered in the same run) and "Fork from here"
// on a turn: the fork's next call is quoted first (nothing is created), then
// the person confirms and the fork starts; the page moves to it.
import { $, apiJson, enc, keyedSends } from "./api.js";

// A reply or fork sent again after a lost answer carries the same key: done once.
const replies = keyedSends();
const forks = keyedSends();

function say(text, ok) {
  const p = $("controls-error");
  p.hidden = false;
  p.textContent = text;
  p.className = "error" + (ok ? " ok" : "");
}

function usd(n) {
  return "$" + n.toFixed(6);
}

/** The words of a quote: the next call's prompt and the reply reserved for it. */
export function quoteWords(q) {
  return "Turn " + q.turn + " would send " + q.promptTokens.toLocaleString("en-US") +
    " prompt tokens (" + usd(q.promptUsd) + ") and reserve up to " +
    q.replyTokens.toLocaleString("en-US") + " reply tokens (" + usd(q.replyUsd) +
    "): at most " + usd(q.totalUsd) + " for that call on " + q.model +
    ". Repeated reads are replayed from this run at $0.";
}

async function sendReply(form, refresh) {
  const input = form.elements.content;
  const content = input.value.trim();
  if (!content) return;
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    const path = "/runs/" + enc(form.dataset.runId) + "/messages";
    const payload = { content: content };
    await apiJson(path, {
      method: "POST",
      json: payload,
      idempotencyKey: replies.key(path, payload),
    });
    replies.done();
    input.value = "";
    say("Sent: the run answers it.", true);
  } catch (err) {
    say("Reply refused (" + (err.status || "network") + "): " + err.message, false);
  } finally {
    button.disabled = false;
    refresh();
  }
}

function quotePanel(button, quote) {
  const old = button.parentElement.querySelector(".fork-quote");
  if (old) old.remove();
  const panel = document.createElement("div");
  panel.className = "fork-quote";
  const p = document.createElement("p");
  p.textContent = quoteWords(quote);
  const go = document.createElement("button");
  go.type = "button";
  go.className = "fork-confirm";
  go.textContent = "Fork and run";
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.onclick = function () {
    panel.remove();
  };
  panel.append(p, go, cancel);
  button.parentElement.append(panel);
  return go;
}

async function fork(button) {
  const path = "/runs/" + enc(button.dataset.runId) + "/fork";
  const atTurn = Number(button.dataset.turn);
  button.disabled = true;
  try {
    const { quote } = await apiJson(path, { method: "POST", json: { atTurn, quoteOnly: true } });
    const go = quotePanel(button, quote);
    go.onclick = async function () {
      go.disabled = true;
      try {
        const payload = { atTurn: atTurn };
        const idempotencyKey = forks.key(path, payload);
        const made = await apiJson(path, { method: "POST", json: payload, idempotencyKey });
        forks.done();
        location.href = "/ui/runs/" + enc(made.runId);
      } catch (err) {
        say("Fork refused (" + (err.status || "network") + "): " + err.message, false);
        go.disabled = false;
      }
    };
  } catch (err) {
    say("Quote refused (" + (err.status || "network") + "): " + err.message, false);
  } finally {
    button.disabled = false;
  }
}

/** Handles the reply form and the fork buttons of the run page. */
export function handleConversation(refresh) {
  document.addEventListener("submit", function (e) {
    const form = e.target.closest && e.target.closest("form[data-action=reply]");
    if (!form) return;
    e.preventDefault();
    sendReply(form, refresh);
  });
  document.addEventListener("click", function (e) {
    const button = e.target.closest && e.target.closest("button[data-action=fork]");
    if (button) fork(button);
  });
}
