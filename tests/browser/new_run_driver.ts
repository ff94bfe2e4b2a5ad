// The browser side of tests/browser/new_run_browser_test.ts, in its own process
// (as inspector_driver.ts): on the run list, picks an agent in "Start a run",
// types a task, submits, and follows the new run's page to its end.
//
// Usage: deno run -A tests/browser/new_run_driver.ts <base-url> <token> <screenshot>
// Prints one JSON line `{ "options", "url", "agentCell", "status", "pageErrors" }`.
import { driverMain, withPage } from "./with_page.ts";

async function drive(base: string, token: string, shot: string): Promise<unknown> {
  return await withPage(async (page, pageErrors) => {
    await page.goto(`${base}/`);
    await page.evaluate(`sessionStorage.setItem("reins.token", ${JSON.stringify(token)})`);
    await page.goto(`${base}/`);
    const options = await page.locator("#new-run-agent option").allTextContents();
    await page.selectOption("#new-run-agent", "demo-deep");
    await page.fill("#new-run-task", "Which file mentions a timeout?");
    await page.click("#new-run button[type=submit]");
    await page.waitForURL(/\/ui\/runs\//);
    const url = page.url();
    // The root node names its agent; wait for the run to end.
    await page.locator("#summary .badge").filter({ hasText: /Completed/ }).waitFor();
    await page.screenshot({ path: shot });
    const rootLabel = await page.locator("#tree .node-id").first().innerText();
    await page.goto(`${base}/`);
    const agentCell = await page.locator("#runs td.agent").first().innerText();
    return { options, url, rootLabel, agentCell, pageErrors };
  });
}

if (import.meta.main) await driverMain("new_run_driver.ts", "screenshot", drive);
