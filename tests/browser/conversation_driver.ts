// The browser side of tests/browser/conversation_browser_test.ts, in its own process
// (see `with_page.ts`). Against the running server, in Debian's chromium:
//
// 1. A completed plan run: the reply box sends a follow-up whose answer is lost (the
//    page sees a network error), then Send again with the same Idempotency-Key; the
//    page shows the run completed again with 4 turns and the message once.
// 2. "Fork from here" on turn 1: the quote is shown (nothing created yet); "Fork and
//    run" creates the fork and the page moves to it; it completes.
//
// Usage: deno run -A tests/browser/conversation_driver.ts <base-url> <token> <screenshot.png>
// Prints one JSON line `{"plan": <id>, "fork": <id>, "quote": <text>, "runsBefore": n, ...}`.
import type { Page } from "npm:playwright-core@1.65.1";
import { waitFor as poll } from "../server_http.ts";
import { driverMain, loseFirstAnswer, okNotice, withPage } from "./with_page.ts";

const waitFor = <T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000) =>
  poll(probe, what, ms, { retryErrors: true, everyMs: 50 });

async function text(page: Page, selector: string): Promise<string> {
  return await page.locator(selector).first().innerText();
}

async function drive(base: string, token: string, screenshot: string): Promise<unknown> {
  // deno-lint-ignore no-explicit-any
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return await res.json();
  };
  return await withPage(async (page, pageErrors) => {
    const plan = (await api("POST", "/runs", { scenario: "plan" })).runId as string;
    await waitFor(
      async () => (await api("GET", `/runs/${plan}`)).status === "completed" || undefined,
      "plan to complete",
    );
    await page.goto(`${base}/ui/runs/${plan}`);
    await page.fill("#auth-token", token);
    await page.click("#auth button[type=submit]");
    // 1. The reply box. Its first answer is lost on the way back (the server got the
    // message and answers it); Send again, once the run takes replies again, carries the
    // same Idempotency-Key and gets the first answer: the message is appended once.
    const keys = await loseFirstAnswer(page, "**/runs/*/messages");
    await page.fill("form.reply input[name=content]", "Which worker was it?");
    await page.click("form.reply button[type=submit]");
    await page.locator("#controls-error", { hasText: "Reply refused (network)" }).waitFor();
    // The run answered meanwhile and takes replies again: the person sends it again.
    await waitFor(
      async () => (await api("GET", `/runs/${plan}`)).status === "completed" || undefined,
      "the lost follow-up to be answered",
    );
    await page.fill("form.reply input[name=content]", "Which worker was it?");
    await page.click("form.reply button[type=submit]");
    await okNotice(page, "Sent");
    await page.unroute("**/runs/*/messages");
    await page.locator(".transcript li.msg.user", { hasText: "Which worker was it?" }).waitFor();
    await waitFor(
      async () => (await api("GET", `/runs/${plan}`)).status === "completed" || undefined,
      "the follow-up to be answered",
    );
    await page.locator("#summary", { hasText: "4 of" }).waitFor();
    // 2. Fork from turn 1: quote first.
    const runsBefore = (await api("GET", "/runs")).runs.length;
    await page.locator('button[data-action=fork][data-turn="1"]').click();
    await page.locator(".fork-quote").waitFor();
    const quote = await text(page, ".fork-quote p");
    const runsQuoted = (await api("GET", "/runs")).runs.length;
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.click(".fork-quote button.fork-confirm");
    await page.waitForURL((url) =>
      url.pathname.startsWith("/ui/runs/") && !url.pathname.endsWith(plan)
    );
    const fork = new URL(page.url()).pathname.split("/").at(-1)!;
    await page.locator("#summary", { hasText: "errors.log mentions a timeout" }).waitFor();
    const origin = await text(page, "#summary .crumb");
    const asked = (await api("GET", `/runs/${plan}/messages`)).messages
      .filter((m: { content?: string }) => m.content === "Which worker was it?").length;
    return { plan, fork, quote, origin, runsBefore, runsQuoted, keys, asked, pageErrors };
  });
}

if (import.meta.main) await driverMain("conversation_driver.ts", "screenshot.png", drive);
