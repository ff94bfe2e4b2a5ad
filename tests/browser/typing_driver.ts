// The browser side of tests/browser/typing_browser_test.ts, in its own process
// (as inspector_driver.ts): opens a `plan` run's page in chromium and watches
// the answer being typed. Records the text of the transcript's "writing" entry
// (and of the root node's typing line) each time it changes while no committed
// reply holds the final answer yet, and screenshots the page mid-stream.
//
// Usage: deno run -A tests/browser/typing_driver.ts <base-url> <token> <screenshot-prefix>
// Prints one JSON line `{"runId", "typed": [...], "node": [...], "final"}` at the end.
import { driverMain, withPage } from "./with_page.ts";

// Page-side code is given as text: tests are type-checked without the DOM lib.
const SNAPSHOT = `(() => {
  const pre = document.querySelector("#transcript ol.transcript > li.msg.typing pre");
  const node = document.querySelector("#tree [data-typing-for]");
  const committed = [...document.querySelectorAll(
    "#transcript ol.transcript > li.msg.assistant:not(.typing)",
  )].map((li) => li.innerText);
  const badge = document.querySelector("#summary .badge");
  const first = document.querySelector("#transcript ol.transcript > li.msg");
  // The writing entry lines up with the other entries (no rule of the tree's moves it).
  const aligned = pre ? pre.closest("li").getBoundingClientRect().left ===
    first.getBoundingClientRect().left : null;
  return {
    typed: pre ? pre.textContent : null,
    node: node ? node.textContent : null,
    committed,
    badge: badge ? badge.innerText : "",
    aligned,
  };
})()`;

interface Snapshot {
  typed: string | null;
  node: string | null;
  committed: string[];
  badge: string;
  aligned: boolean | null;
}

async function drive(base: string, token: string, shots: string): Promise<unknown> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return await withPage(async (page, pageErrors) => {
    // The token first (on the run list), so the run is watched from its first turn.
    await page.goto(`${base}/ui/runs`);
    await page.evaluate(`sessionStorage.setItem("reins.token", ${JSON.stringify(token)})`);
    const created = await fetch(`${base}/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ task: "Which file mentions a timeout?", scenario: "plan" }),
    });
    const runId = (await created.json()).runId as string;
    await page.goto(`${base}/ui/runs/${runId}`);
    if (await page.locator("#auth").isVisible()) {
      await page.fill("#auth-token", token);
      await page.click("#auth button[type=submit]");
    }
    const typed: { text: string; committed: string[]; aligned: boolean | null }[] = [];
    const node: string[] = [];
    let shot = 0;
    const until = Date.now() + 30_000;
    let last: Snapshot | undefined;
    while (Date.now() < until) {
      const s = await page.evaluate(SNAPSHOT) as Snapshot;
      last = s;
      if (/Completed|Failed|Stopped/.test(s.badge)) break;
      if (s.typed && s.typed !== typed.at(-1)?.text) {
        typed.push({ text: s.typed, committed: s.committed, aligned: s.aligned });
        if (shot < 3) await page.screenshot({ path: `${shots}-${++shot}.png`, fullPage: true });
      }
      if (s.node && s.node !== node.at(-1)) node.push(s.node);
      await new Promise((r) => setTimeout(r, 15));
    }
    const run = await (await fetch(`${base}/runs/${runId}`, { headers })).json();
    await page.screenshot({ path: `${shots}-done.png`, fullPage: true });
    return { runId, typed, node, final: run.output, status: run.status, last, pageErrors };
  });
}

if (import.meta.main) await driverMain("typing_driver.ts", "screenshot-prefix", drive);
