import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ReferenceServer, startReferenceServer } from "./app.js";
import { signDevToken } from "./auth/dev-tokens.js";
import {
  hasChromium,
  launchChromium,
  openPage,
  outputFolder,
  screenshot,
  signIn,
  suiteName,
  waitMs,
} from "./testing/chromium.js";
import { sendDelivery, signedSample } from "./webhooks/sample-deliveries.js";

// The page (public/index.html and src/page/main.ts) driven like a user in headless Chromium. Each test saves a
// screenshot under test-results/page/ and checks what it shows through the DOM (text, counts), not pixels.
describe.skipIf(!hasChromium)(suiteName("reference page in headless Chromium"), { timeout: 20_000 }, () => {
  const folder = outputFolder("page");
  let dataDir: string;
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  /** Uncaught errors (and dialogs: the page must never use one) of every page; each test leaves it empty. */
  const pageErrors: string[] = [];
  /** Requests the first page sent, as `METHOD path`. */
  const sent: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-page-"));
    server = await startReferenceServer({ host: "127.0.0.1", port: 0, dataDir });
    browser = await launchChromium();
    page = await openPage(browser, pageErrors);
    page.on("request", (request) => sent.push(`${request.method()} ${new URL(request.url()).pathname}`));
  }, 20_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(pageErrors.splice(0), "uncaught errors in the page").toEqual([]);
  });

  const text = (id: string, on = page) => on.locator(`#${id}`).textContent();
  const count = (selector: string, on = page) => on.locator(selector).count();
  const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: waitMs });
  const shot = async (name: string, on = page) =>
    expect(statSync(await screenshot(on, folder, name)).size).toBeGreaterThan(0);

  /** What the server holds, asked directly with a token of `user`. */
  async function api(user: string, path: string) {
    const token = await signDevToken({ userId: user, orgId: "acme" });
    const res = await fetch(`${server.url}/api/flows${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  const sessionShown = async (on = page) => (await text("session", on))?.replace(/^session /, "") ?? "";

  test("sign-in: the page asks for a user, then shows that user's empty notebook in a new session", async () => {
    await page.goto(server.url);
    await expect(page.title()).resolves.toBe("flowrt notebook");
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect(await text("whoami")).toBe("");

    await signIn(page, "ada");
    await poll(() => text("whoami")).toBe("signed in as ada in acme");
    await poll(() => sessionShown()).toMatch(/^\S+$/);
    expect(await page.locator("#app").isVisible()).toBe(true);
    expect(await text("profile")).toBe("(no name): 0 notes added in all sessions");
    expect(await count("#notes li")).toBe(0);
    expect((await api("ada", `/sessions/${await sessionShown()}`)).body.session).toMatchObject({
      userId: "ada",
      orgId: "acme",
    });
    await shot("sign-in");
  });

  test("adding a note shows it, its text and the new count without a reload, following the request's stream", async () => {
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    sent.length = 0;
    await page.fill("#title", "Trip plan");
    await page.fill("#text", "Pack boots.");
    await page.click("#add button[type=submit]");

    await poll(() => page.locator("#notes li").allTextContents()).toEqual(["Trip plan Pack boots. delete"]);
    await poll(() => text("profile")).toBe("(no name): 1 notes added in all sessions");
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    // Followed through the request's event stream; the request was never polled.
    expect(sent.filter((line) => /\/requests\/[^/]+\/stream$/.test(line))).toHaveLength(1);
    expect(sent.filter((line) => /^GET \/api\/flows\/requests\/[^/]+$/.test(line))).toEqual([]);
    const logged = await page
      .locator("#log li")
      .evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.type));
    expect(logged).toEqual(
      expect.arrayContaining(["request.started", "resource_change", "request.completed"]),
    );
    expect(logged.filter((type) => type === "resource_change").length).toBeGreaterThanOrEqual(2);
    await shot("note-added");
  });

  test("renaming shows the name; a change of user leaves nothing of the previous one on screen", async () => {
    await page.fill("#name", "Ada Lovelace");
    await page.click("#profile-form button[type=submit]");
    await poll(() => text("profile")).toBe("Ada Lovelace: 1 notes added in all sessions");

    await signIn(page, "bob");
    await poll(() => text("whoami")).toBe("signed in as bob in acme");
    await poll(() => text("profile")).toBe("(no name): 0 notes added in all sessions");
    expect(await page.inputValue("#name")).toBe("");
    expect(await count("#notes li")).toBe(0);
    expect(await count("#log li")).toBe(0);
    await shot("switched-to-bob");

    // Back to ada: her profile (user scope) and name box come back; bob's nothing stays.
    await signIn(page, "ada");
    await poll(() => text("profile")).toBe("Ada Lovelace: 1 notes added in all sessions");
    expect(await page.inputValue("#name")).toBe("Ada Lovelace");
    expect(await count("#notes li")).toBe(0);
    await shot("back-to-ada");
  });

  test("a second browser context sees a board post of the first live", async () => {
    const second = await openPage(browser, pageErrors);
    await second.goto(server.url);
    await signIn(second, "bob");
    await poll(() => text("whoami", second)).toBe("signed in as bob in acme");
    await poll(() => sessionShown(second)).toMatch(/^\S+$/);
    const before = await count("#board li", second);

    await page.fill("#post", "Standup at ten");
    await page.click("#board-form button[type=submit]");
    await poll(() => second.locator("#board li").first().textContent()).toBe("member Standup at ten by ada");
    expect(await count("#board li", second)).toBe(before + 1);
    await poll(() => count("#board li")).toBe(before + 1);
    await shot("board-first", page);
    await shot("board-second", second);
    await second.context().close();
  });

  test("a signed webhook delivery sent from the test appears on the board", async () => {
    const before = await count("#board li");
    const delivery = await sendDelivery(server.url, signedSample("invoice.paid"));
    expect(delivery.status).toBe(202);
    await poll(() => count("#board li")).toBe(before + 1);
    expect(await page.locator("#board li").first().textContent()).toMatch(
      /^stripe Invoice in_\w+ paid: 42\.00 eur by webhooks$/,
    );
    await shot("webhook-delivery");
  });

  test("a failing action shows its error inline with its code, and nothing is written", async () => {
    const boardBefore = await count("#board li");
    const logBefore = await count("#log li");
    const stored = (await api("ada", `/sessions/${await sessionShown()}/resources/board`)).body.items.length;
    // An empty post: the action refuses its input before anything runs.
    await page.fill("#post", "");
    await page.click("#board-form button[type=submit]");
    await poll(() => page.locator("#error code").textContent()).toBe("invalid-input");
    expect(await text("error")).toMatch(/^invalid-input \S/);
    expect(await count("#board li")).toBe(boardBefore);
    expect(await count("#log li")).toBe(logBefore);
    expect((await api("ada", `/sessions/${await sessionShown()}/resources/board`)).body.items).toHaveLength(
      stored,
    );
    await shot("failed-action");

    // The next action that works clears it.
    await page.fill("#post", "All good");
    await page.click("#board-form button[type=submit]");
    await poll(() => count("#board li")).toBe(boardBefore + 1);
    expect(await text("error")).toBe("");
  });
});
