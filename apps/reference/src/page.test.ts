import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ReferenceServer, startReferenceServer } from "./app.js";

// The page in public/index.html, driven like a user in headless Chromium (Debian's `chromium` package;
// Playwright never downloads a browser here). Without /usr/bin/chromium the suite is skipped, so `pnpm test`
// passes on a machine without it; .ci/run installs it.
const chromiumPath = "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);
const suiteName = hasChromium
  ? "reference page in headless Chromium"
  : `reference page in headless Chromium (skipped: no ${chromiumPath}; apt-get install chromium)`;

/** Long enough for a launch or a reload, well under the 30 s a hung page would otherwise take. */
const waitMs = 5_000;

describe.skipIf(!hasChromium)(suiteName, { timeout: 15_000 }, () => {
  let dataDir: string;
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  /** Uncaught errors and unhandled rejections in the page; every test must leave it empty. */
  const pageErrors: string[] = [];
  /** `alert` texts not yet claimed by a test with `nextDialog()`; every test must leave it empty. */
  const dialogs: string[] = [];
  /** The session ids shown on the page, in order. */
  const sessions: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-page-"));
    server = await startReferenceServer({ host: "127.0.0.1", port: 0, dataDir });
    // One browser for the file. `launch` gives it a fresh temporary profile (--user-data-dir) and removes it
    // on close.
    browser = await chromium.launch({
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
    const context = await browser.newContext();
    context.setDefaultTimeout(waitMs);
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.stack ?? String(error)));
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
  }, 15_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(() => {
    // Emptied first, so that one test's failure is not reported again by the tests after it.
    const errors = pageErrors.splice(0);
    const unexpected = dialogs.splice(0);
    expect(errors, "uncaught errors in the page").toEqual([]);
    expect(unexpected, "alerts no test expected").toEqual([]);
  });

  const text = (id: string) => page.locator(`#${id}`).textContent();
  const noteTexts = () => page.locator("#notes li").allTextContents();
  const sortedNoteTexts = async () => (await noteTexts()).sort();
  const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: waitMs });
  const sessionShown = async () => (await text("session"))?.replace(/^session /, "") ?? "";

  async function nextDialog(): Promise<string> {
    await poll(async () => dialogs.length).toBeGreaterThan(0);
    return dialogs.shift()!;
  }

  async function addNote(title: string, body = "") {
    await page.fill("#title", title);
    await page.fill("#text", body);
    await page.click("#add button[type=submit]");
  }

  /** What the server holds, asked directly rather than through the page. */
  async function api(user: string, path: string, init: { method?: string; body?: unknown } = {}) {
    const res = await fetch(`${server.url}/api/flows${path}`, {
      method: init.method ?? "GET",
      headers: { "content-type": "application/json", "x-user-id": user },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  const serverTitles = async (user: string, sessionId: string) => {
    const { status, body } = await api(user, `/sessions/${sessionId}/resources/notes`);
    expect(status).toBe(200);
    return (body.items as { clientData: { title: string } }[]).map((item) => item.clientData.title).sort();
  };

  test("a note added before any session starts one, and the page shows both", async () => {
    await page.goto(server.url);
    await expect(page.title()).resolves.toBe("flowrt notebook");
    expect(await page.inputValue("#user")).toBe("ada");
    // A fresh browser: no session yet, nothing listed.
    expect(await text("session")).toBe("");
    expect(await noteTexts()).toEqual([]);

    await page.fill("#user", "ada");
    await addNote("First thought", "before any session");

    await poll(noteTexts).toEqual(["First thought delete"]);
    await poll(sessionShown).toMatch(/^\S+$/);
    const sessionId = await sessionShown();
    sessions.push(sessionId);
    expect(await page.evaluate(() => localStorage.getItem("sessionId"))).toBe(sessionId);
    expect(await text("profile")).toBe("(no name): 1 notes added in all sessions");
    // The note is in the session the page shows, and it is ada's.
    expect(await serverTitles("ada", sessionId)).toEqual(["First thought"]);
    expect((await api("ada", `/sessions/${sessionId}`)).body.session).toMatchObject({ userId: "ada" });
  });

  test("New session starts an empty one; a note added there is listed, and delete removes it", async () => {
    await page.click("#new-session");
    // The line is briefly empty between forgetting the old session and showing the new one.
    await poll(async () => {
      const shown = await sessionShown();
      return shown !== "" && shown !== sessions[0];
    }).toBe(true);
    const sessionId = await sessionShown();
    expect(sessionId).toMatch(/^\S+$/);
    sessions.push(sessionId);
    expect(await page.evaluate(() => localStorage.getItem("sessionId"))).toBe(sessionId);
    await poll(noteTexts).toEqual([]);

    await addNote("Trip plan", "Pack boots.");
    await poll(noteTexts).toEqual(["Trip plan delete"]);
    // Added through the page, so not pinned: no marker.
    expect(await page.locator("#notes li", { hasText: "Trip plan" }).textContent()).not.toContain("📌");
    expect(await serverTitles("ada", sessionId)).toEqual(["Trip plan"]);
    const content = await api(
      "ada",
      `/sessions/${sessionId}/resources/notes/${encodeURIComponent("notes/trip-plan")}/content`,
    );
    expect(content.body).toEqual({ content: "Pack boots." });

    await addNote("Second", "");
    await poll(sortedNoteTexts).toEqual(["Second delete", "Trip plan delete"]);
    await page.locator("#notes li", { hasText: "Trip plan" }).getByRole("button", { name: "delete" }).click();
    await poll(noteTexts).toEqual(["Second delete"]);
    expect(await serverTitles("ada", sessionId)).toEqual(["Second"]);
  });

  test("renaming updates the profile line", async () => {
    await page.fill("#name", "Ada Lovelace");
    await page.click("#rename");
    await poll(() => text("profile")).toMatch(/^Ada Lovelace: \d+ notes added in all sessions$/);
    const state = await api("ada", `/sessions/${sessions[1]}/state`);
    expect(state.body.resources.user.profile.clientData.displayName).toBe("Ada Lovelace");
  });

  test("a reload keeps the session (localStorage) and shows its notes, with the pinned marker", async () => {
    // The page has no pin control: pin a note through the API, then let the reload show it.
    const started = await api("ada", "/notebook/actions/addNote", {
      method: "POST",
      body: { sessionId: sessions[1], input: { title: "Pinned one", pinned: true } },
    });
    expect(started.status).toBe(202);
    await poll(
      async () => (await api("ada", `/requests/${started.body.requestId}`)).body.request.status,
    ).toBe("completed");

    await page.reload();
    await poll(sessionShown).toBe(sessions[1]);
    await poll(sortedNoteTexts).toEqual(["Second delete", "📌 Pinned one delete"]);
    await poll(() => text("profile")).toMatch(/^Ada Lovelace: \d+ notes added in all sessions$/);
    expect(await page.inputValue("#user")).toBe("ada");
  });

  test("switching the user field forgets the first user's session: nothing of it stays on screen or is reused", async () => {
    await page.fill("#user", "bob");
    await page.locator("#user").dispatchEvent("change");
    // The page forgets ada's session at once: no notes, no session line, no profile of hers.
    await poll(noteTexts).toEqual([]);
    expect(await text("session")).toBe("");
    expect(await text("profile")).toBe("");
    expect(await page.evaluate(() => localStorage.getItem("sessionId"))).toBeNull();

    // bob's first note starts bob's own session; ada's session is untouched and closed to him.
    await addNote("Bob was here");
    await poll(noteTexts).toEqual(["Bob was here delete"]);
    const bobSession = await sessionShown();
    expect(bobSession).not.toBe(sessions[1]);
    expect((await api("bob", `/sessions/${bobSession}`)).body.session).toMatchObject({ userId: "bob" });
    await poll(() => text("profile")).toBe("(no name): 1 notes added in all sessions");
    expect(await serverTitles("ada", sessions[1]!)).toEqual(["Pinned one", "Second"]);
    expect((await api("bob", `/sessions/${sessions[1]}/resources/notes`)).status).toBe(403);

    // A reload keeps bob and his session (the user id is remembered with it).
    await page.reload();
    expect(await page.inputValue("#user")).toBe("bob");
    await poll(sessionShown).toBe(bobSession);
    await poll(noteTexts).toEqual(["Bob was here delete"]);

    // "New session" refused (no user): one alert. Emptying the user field was a change of user, so bob's
    // session is forgotten, and nothing (not the text "null") is remembered in its place.
    const sessionsBefore = (await server.host.stores.sessions.list({})).total;
    await page.fill("#user", "");
    await page.click("#new-session");
    expect(await nextDialog()).toMatch(/^Error: /);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(dialogs).toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem("sessionId"))).toBeNull();
    expect(await sessionShown()).toBe("");
    expect((await server.host.stores.sessions.list({})).total).toBe(sessionsBefore);
  });

  test("a failure that is not 'gone or not yours' keeps the session; every failure is shown, none uncaught", async () => {
    await page.fill("#user", "carol");
    await page.locator("#user").dispatchEvent("change");
    await addNote("C1");
    await poll(noteTexts).toEqual(["C1 delete"]);
    const sessionId = await sessionShown();

    // The server answers 503 once while the page loads: the session is kept and the page says to reload.
    await page.route(
      `**/sessions/${sessionId}/state`,
      (route) =>
        route.fulfill({
          status: 503,
          contentType: "application/problem+json",
          body: '{"detail":"restarting"}',
        }),
      { times: 1 },
    );
    await page.reload();
    expect(await nextDialog()).toBe("Error: restarting; reload to try again.");
    expect(await page.evaluate(() => localStorage.getItem("sessionId"))).toBe(sessionId);
    await page.reload();
    await poll(noteTexts).toEqual(["C1 delete"]);

    // The action succeeds and the refresh after it fails: shown, not an unhandled rejection.
    await page.route(
      `**/sessions/${sessionId}/resources/notes`,
      (route) =>
        route.request().method() === "GET"
          ? route.fulfill({ status: 500, contentType: "text/html", body: "<h1>oops</h1>" })
          : route.fallback(),
      { times: 1 },
    );
    await addNote("C2");
    // A proxy's HTML error page: the status is told, not a JSON parser's complaint.
    expect(await nextDialog()).toBe("Error: Internal Server Error");
    await page.reload();
    await poll(sortedNoteTexts).toEqual(["C1 delete", "C2 delete"]);
  });

  test("a user changed while the first action is on its way does not inherit that action's session", async () => {
    await page.fill("#user", "dave");
    await page.locator("#user").dispatchEvent("change");
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      "**/notebook/actions/addNote",
      async (route) => {
        await held;
        await route.fallback();
      },
      { times: 1 },
    );
    await addNote("D1");
    await page.fill("#user", "erin");
    await page.locator("#user").dispatchEvent("change");
    release();
    // dave's note lands in dave's new session; the page, now erin's, shows no session and remembers none.
    await poll(async () => (await server.host.stores.sessions.list({ userId: "dave" })).total).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await sessionShown()).toBe("");
    expect(await page.evaluate(() => localStorage.getItem("sessionId"))).toBeNull();
    expect(await noteTexts()).toEqual([]);
  });
});
