// Approve, Reject, Stop, Resume: the forms post to the API; its error is
// shown under the buttons. `refresh` reloads the run's parts afterwards.
import { $, apiJson, enc } from "./api.js";

let noticeTimer = null;

function notice(text, ok) {
  const p = $("controls-error");
  clearTimeout(noticeTimer);
  p.hidden = false;
  p.textContent = text;
  p.className = "error" + (ok ? " ok" : "");
  if (ok) {
    noticeTimer = setTimeout(function () {
      p.hidden = true;
    }, 6000);
  }
}

/** Handles the submit of every `form[data-action]` on the page. */
export function handleControls(refresh) {
  document.addEventListener("submit", async function (e) {
    const form = e.target.closest && e.target.closest("form[data-action]");
    if (!form) return;
    e.preventDefault();
    const rootId = form.dataset.rootId, action = form.dataset.action;
    let what, path, payload, done;
    const reason = form.elements.reason ? form.elements.reason.value : "";
    if (action === "verdict") {
      const callId = form.dataset.callId;
      const verdict = e.submitter && e.submitter.value === "reject" ? "reject" : "approve";
      what = verdict === "approve" ? "Approve" : "Reject";
      path = "/runs/" + enc(rootId) + "/" + verdict;
      payload = verdict === "reject" && reason !== ""
        ? { callId: callId, reason: reason }
        : { callId: callId };
      done = verdict === "approve"
        ? "Approved: the tree continues."
        : "Rejected: the model is told why.";
    } else if (action === "stop") {
      what = "Stop";
      path = "/runs/" + enc(rootId) + "/stop";
      payload = reason.trim() ? { reason: reason.trim() } : {};
      done = "Stop sent: every run of the tree stops.";
    } else if (action === "resume") {
      what = "Resume";
      path = "/runs/" + enc(rootId) + "/resume";
      payload = {};
      done = "Resumed: the tree continues.";
    } else return;
    const buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) {
      b.disabled = true;
    });
    try {
      await apiJson(path, { method: "POST", json: payload });
      notice(done, true);
    } catch (err) {
      notice(what + " refused (" + (err.status || "network") + "): " + err.message, false);
    } finally {
      buttons.forEach(function (b) {
        b.disabled = false;
      });
      refresh();
    }
  });
}
