import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * Headless Chromium for the page tests: Debian's `/usr/bin/chromium` (`apt-get install chromium`; `.ci/run`
 * installs it), never a browser download. Without it the suites are skipped, with the reason in their names.
 */
export const chromiumPath = "/usr/bin/chromium";
export const hasChromium = existsSync(chromiumPath);
export const suiteName = (name: string) =>
  hasChromium ? name : `${name} (skipped: no ${chromiumPath}; apt-get install chromium)`;

/** Long enough for a launch or a reload, well under the 30 s a hung page would otherwise take. */
export const waitMs = 5_000;

/** One browser; `launch` gives it a fresh temporary profile (--user-data-dir) and removes it on close. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    timeout: waitMs,
  });
}

/** A new page in its own context (own storage), recording uncaught errors into `errors`. */
export async function openPage(browser: Browser, errors: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(waitMs);
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(error.stack ?? String(error)));
  page.on("dialog", (dialog) => {
    errors.push(`unexpected dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return page;
}

/** The test output folder of one test file: `apps/reference/test-results/<file>/`. */
export function outputFolder(testFile: string): string {
  const dir = join(import.meta.dirname, "..", "..", "test-results", testFile);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Saves a full-page screenshot as `<folder>/<name>.png` and answers its path. */
export async function screenshot(page: Page, folder: string, name: string): Promise<string> {
  const path = join(folder, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs in through the page's form. */
export async function signIn(page: Page, userId: string, orgId = "acme") {
  await page.fill("#user", userId);
  await page.fill("#org", orgId);
  await page.click("#signin button[type=submit]");
}
