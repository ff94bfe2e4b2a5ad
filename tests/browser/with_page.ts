// The driver side of the browser tests, in the driver's own process:
// playwright-core needs more of the system than the test runner is given
// (`deno task test` has no --allow-sys), so each test starts the server and
// runs its driver with -A. One chromium launch, one page, one way in.
import { chromium, type Page } from "npm:playwright-core@1.65.1";
import { CHROMIUM } from "./browser_server.ts";

/** The flags the browser is launched with (plus a fresh user data dir). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Debian's chromium on a fresh profile and calls `use` with its page and the
 * page's script errors (collected as they happen); closes it and removes the profile after.
 */
export async function withPage<T>(use: (page: Page, pageErrors: string[]) => Promise<T>) {
  const profile = await Deno.makeTempDir({ prefix: "reins-chromium-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: CHROMIUM_ARGS,
  });
  const pageErrors: string[] = [];
  try {
    const page = context.pages()[0] ?? await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    return await use(page, pageErrors);
  } finally {
    await context.close();
    await Deno.remove(profile, { recursive: true });
  }
}

/**
 * Waits until the page has said `text` in its success notice. Only its words are awaited,
 * not its being shown: the page hides a success notice once the tree stops or waits again,
 * which a quick run can do first.
 */
export async function okNotice(page: Page, text: string): Promise<void> {
  await page.locator("#controls-error.ok", { hasText: text }).waitFor({ state: "attached" });
}

/**
 * Loses the answer of the first POST to `url` (the server does the work; the page sees a
 * network failure) and lets later ones through. Returns the `Idempotency-Key` of each POST,
 * in order, as they come.
 */
export async function loseFirstAnswer(page: Page, url: string): Promise<string[]> {
  const keys: string[] = [];
  await page.route(url, async (route) => {
    const request = route.request();
    if (request.method() !== "POST") return await route.continue();
    keys.push(request.headers()["idempotency-key"] ?? "");
    if (keys.length > 1) return await route.continue();
    await route.fetch();
    await route.abort("failed");
  });
  return keys;
}

/**
 * A driver's entry point: `deno run -A tests/browser/<name> <base-url> <token> <out>`;
 * prints what `drive` returns as one JSON line.
 */
export async function driverMain(
  name: string,
  out: string,
  drive: (base: string, token: string, out: string) => Promise<unknown>,
): Promise<void> {
  const [base, token, path] = Deno.args;
  if (!base || !token || !path) {
    console.error(`usage: ${name} <base-url> <token> <${out}>`);
    Deno.exit(2);
  }
  console.log(JSON.stringify(await drive(base, token, path)));
}
