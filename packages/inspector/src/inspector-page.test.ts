import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import {
  deliverWebhook,
  type InspectorServer,
  openGate,
  runAction,
  settle,
  startInspectorServer,
} from "./testing/inspector-fixture.js";

// The inspector's page in headless Chromium (Debian's `chromium`; Playwright never downloads a browser here).
// Without /usr/bin/chromium the suite is skipped, so `pnpm test` passes on a machine without it.
const chromiumPath = "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);
const suiteName = hasChromium
  ? "inspector page in headless Chromium"
  : `inspector page in headless Chromium (skipped: no ${chromiumPath})`;
/** Screenshots land here (ignored by git), one per test. */
const outputDir = fileURLToPath(new URL("../test-output/", import.meta.url));
const waitMs = 5_000;

describe.skipIf(!hasChromium)(suiteName, { timeout: 20_000 }, () => {
  let profileDir: string;
  let server: InspectorServer;
  let context: BrowserContext;
  let page: Page;
  const gate = openGate();
  const pageErrors: string[] = [];
  let note: { requestId: string; sessionId: string };
  let failing: { requestId: string; sessionId: string };
  let running: { requestId: string; sessionId: string };

  beforeAll(async () => {
    mkdirSync(outputDir, { recursive: true });
    profileDir = mkdtempSync(join(tmpdir(), "flowrt-inspector-chromium-"));
    server = await startInspectorServer({ inspector: true, gate: gate.opened });
    note = await runAction(server, "addNote", { input: { key: "first", title: "Hello" }, userId: "ada" });
    await settle(server, note.requestId);
    failing = await runAction(server, "checkout", { sessionId: note.sessionId, userId: "ada" });
    await settle(server, failing.requestId);
    await settle(server, await deliverWebhook(server, "evt_42", "From a webhook"));
    running = await runAction(server, "slow", { userId: "bob" });
    // A fresh profile of its own (--user-data-dir), removed after the suite.
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumPath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
      ],
      timeout: waitMs,
    });
    context.setDefaultTimeout(waitMs);
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.stack ?? String(error)));
  }, 20_000);

  afterAll(async () => {
    gate.open();
    await context?.close();
    await server?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(pageErrors.splice(0), "uncaught errors in the page").toEqual([]);
  });

  const shot = async (name: string) => {
    const path = join(outputDir, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    expect(statSync(path).size).toBeGreaterThan(0);
  };

  test("lists the flows with their actions and every user's sessions, filtered by user", async () => {
    await page.goto(server.inspector);
    // ada's, bob's, and the webhook inbox (run as `webhooks`).
    await expect.poll(() => page.locator("#sessions li[data-session]").count()).toBe(3);
    expect(await page.locator('#flows li[data-flow="notebook"] li[data-action]').allTextContents()).toEqual([
      "addNote → addNote (handler)",
      "checkout → checkout (sequencer)",
      "slow → slowStep (handler)",
    ]);
    await page.fill("#filter-user", "ada");
    await page.click("#session-filter button");
    await expect.poll(() => page.locator("#sessions li[data-session]").count()).toBe(1);
    expect(await page.locator("#sessions li[data-session]").getAttribute("data-session")).toBe(
      note.sessionId,
    );
    await shot("sessions");
  });

  test("a session shows its resources and requests; the failed one its error, block and events", async () => {
    await page.click(`#sessions li[data-session="${note.sessionId}"] button`);
    await expect.poll(() => page.locator("#requests li[data-request]").count()).toBe(2);
    const notes = await page.locator('#resources li[data-resource="notes"]').textContent();
    expect(notes).toContain('"title": "Hello"');
    expect(notes).toContain('"content": "# Hello"');
    expect(
      await page.locator(`#requests li[data-request="${failing.requestId}"] .status`).textContent(),
    ).toBe("failed");
    await page.click(`#requests li[data-request="${failing.requestId}"] button`);
    await expect.poll(() => page.locator("#request-id").textContent()).toBe(failing.requestId);
    expect(await page.locator("#request-failure").textContent()).toBe(
      "operation-not-permitted: The card was declined. in block chargeCard (handler)",
    );
    expect(
      await page.locator("#events li").evaluateAll((items) => items.map((li) => li.dataset.type)),
    ).toEqual([
      "request.started",
      "block.started",
      "block.started",
      "block.completed",
      "block.started",
      "request.failed",
    ]);
    expect(
      await page.locator(`#failures li[data-request="${failing.requestId}"] .failure`).textContent(),
    ).toContain("in block chargeCard");
    expect(await page.locator("#failures li[data-request]").count()).toBe(1);
    // The webhook delivery: its id, the binding it ran and its outcome.
    const deliveries = page.locator("#deliveries li[data-request]");
    expect(await deliveries.count()).toBe(1);
    expect(await deliveries.first().textContent()).toContain("evt_42");
    expect(await deliveries.first().textContent()).toContain("webhook:demo:note.created");
    expect(await deliveries.first().locator(".status").textContent()).toBe("completed");
    await shot("failure");
  });

  test("a running request's events arrive live from its stream, ending with its completion", async () => {
    await page.fill("#filter-user", "bob");
    await page.click("#session-filter button");
    await page.click(`#sessions li[data-session="${running.sessionId}"] button`);
    await page.click(`#requests li[data-request="${running.requestId}"] button`);
    await expect.poll(() => page.locator('#events li[data-type="progress"]').count()).toBe(1);
    expect(await page.locator("#request-live").isVisible()).toBe(true);
    expect(await page.locator("#request-status").textContent()).toBe("running");
    gate.open();
    await expect.poll(() => page.locator('#events li[data-type="request.completed"]').count()).toBe(1);
    await expect.poll(() => page.locator("#request-status").textContent()).toBe("completed");
    expect(await page.locator("#request-live").isVisible()).toBe(false);
    expect(
      await page.locator("#events li").evaluateAll((items) => items.map((li) => li.dataset.type)),
    ).toEqual(["request.started", "block.started", "progress", "block.completed", "request.completed"]);
    await shot("live-request");
  });
});
