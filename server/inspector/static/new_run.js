// The run list's "Start a run" form: posts { agent, task } to POST /runs
// (with an Idempotency-Key: Start pressed again after a lost answer makes one
// run) and opens the new run's page.
import { $, apiJson, keyedSends } from "./api.js";

const starts = keyedSends();

/** Wires the form, if the page has one. */
export function newRunForm() {
  const form = $("new-run");
  if (!form) return;
  const error = $("new-run-error");
  form.addEventListener("submit", async function (e) {
    e.preventDefault();
    const task = $("new-run-task").value.trim();
    if (!task) return;
    error.hidden = true;
    try {
      const payload = { agent: $("new-run-agent").value, task: task };
      const run = await apiJson("/runs", {
        method: "POST",
        json: payload,
        idempotencyKey: starts.key("/runs", payload),
      });
      starts.done();
      location.href = "/ui/runs/" + encodeURIComponent(run.runId);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
}
