// Approve, Reject, Stop, Resume (raising a budget or a turn cap): the forms
// post to the API; its error is shown under the buttons. `refresh` reloads
// the run's parts afterwards. Each sends an Idempotency-Key: pressed again
// after a lost answer, the same key (the verdict is given once and answered
// as at first, not refused as "status is running"); a new one once answered.
import { $, apiJson, enc, keyedSends } from "./api.js";

const controls = keyedSends();

let noticeTimer = null;

function notice(text, ok) {
  const p = $("controls-error");
  clearTimeout(noticeTimer);
  p.hidden = false;
  p.textContent = text;
  p.className = "error" + (ok ? " ok" : "");
  if (ok) noticeTimer = setTimeout(clearDoneNotice, 6000);
}

/**
 * The run's controls changed (it waits, runs or stopped anew): a key kept for
 * a request whose answer was lost belongs to the state before. Pressed now,
 * Stop (or Approve) is a new request, not a replay of the old one.
 */
export function forgetKeptKey() {
  controls.done();
}

/** Hides "Approved: …", "Resumed: …" (not an error): the tree has moved on. */
export function clearDoneNotice() {
  const p = $("controls-error");
  if (p && p.classList.contains("ok")) p.hidden = true;
}

/** The limits a Resume form raises: `{ maxBudgetUsd }` and/or `{ maxTurns }`, or none. */
function limitsOf(form) {
  const limits = {};
  ["maxBudgetUsd", "maxTurns"].forEach(function (name) {
    const input = form.elements[name];
    if (input && input.value.trim() !== "") limits[name] = Number(input.value);
  });
  return Object.keys(limits).length ? limits : null;
}

/** What a submitted form asks of the API: its name, path, body and the words once done. */
function requestOf(form, submitter) {
  const rootId = form.dataset.rootId, action = form.dataset.action;
  const reason = form.elements.reason ? form.elements.reason.value : "";
  const base = "/runs/" + enc(rootId) + "/";
  if (action === "verdict") {
    const callId = form.dataset.callId;
    const verdict = submitter && submitter.value === "reject" ? "reject" : "approve";
    return {
      what: verdict === "approve" ? "Approve" : "Reject",
      path: base + verdict,
      payload: verdict === "reject" && reason !== ""
        ? { callId: callId, reason: reason }
        : { callId: callId },
      done: verdict === "approve"
        ? "Approved: the tree continues."
        : "Rejected: the model is told why.",
    };
  }
  if (action === "stop") {
    return {
      what: "Stop",
      path: base + "stop",
      payload: reason.trim() ? { reason: reason.trim() } : {},
      done: "Stop sent: every run of the tree stops.",
    };
  }
  if (action !== "resume") return null;
  const limits = limitsOf(form);
  return {
    what: "Resume",
    path: base + "resume",
    payload: limits ? { limits: limits } : {},
    done: limits
      ? "Resumed with the new limit: the tree continues."
      : "Resumed: the tree continues.",
  };
}

/** Handles the submit of every `form[data-action]` on the page. */
export function handleControls(refresh) {
  document.addEventListener("submit", async function (e) {
    const form = e.target.closest && e.target.closest("form[data-action]");
    if (!form) return;
    e.preventDefault();
    const r = requestOf(form, e.submitter);
    if (!r) return;
    const buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) {
      b.disabled = true;
    });
    try {
      await apiJson(r.path, {
        method: "POST",
        json: r.payload,
        idempotencyKey: controls.key(r.path, r.payload),
      });
      controls.done();
      notice(r.done, true);
    } catch (err) {
      notice(r.what + " refused (" + (err.status || "network") + "): " + err.message, false);
    } finally {
      buttons.forEach(function (b) {
        b.disabled = false;
      });
      refresh();
    }
  });
}
