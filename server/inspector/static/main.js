// The page's entry module: marks the page as scripted (what is `needs-js`
// shows), then enhances the run list or a run's page. Without JavaScript
// both still read: the server renders them whole.
import { $, apiJson, setLive, sleep } from "./api.js";
import { runPage } from "./run_page.js";
import { newRunForm } from "./new_run.js";

document.documentElement.classList.add("js");

/** The run list, refreshed from the server's fragment. */
async function listPage() {
  const target = $("runs");
  let last = null;
  for (;;) {
    try {
      const data = await apiJson("/ui/parts/runs");
      if (data.html !== last) target.innerHTML = data.html;
      last = data.html;
      setLive("live", true);
    } catch (e) {
      setLive("offline: " + e.message, false);
    }
    await sleep(document.hidden ? 6000 : 2000);
  }
}

const body = document.body;
if (body.dataset.page === "list") (newRunForm(), listPage());
else if (body.dataset.page === "run") runPage(body.dataset.runId);
