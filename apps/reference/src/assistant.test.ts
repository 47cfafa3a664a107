import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFlowClient, type FlowStreamEvent, isStreamEvent } from "@flowrt/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ReferenceServer, startReferenceServer } from "./app.js";
import { OfflineModel } from "./assistant/offline-model.js";
import { signDevToken } from "./auth/dev-tokens.js";
import type { flows } from "./flows.js";
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

// The assistant on the offline model (no network, no key): its streamed text, the tool call that writes a note,
// and that note on the page.
const dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-assistant-"));
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({ port: 0, dataDir });
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the assistant on the offline model", () => {
  test("the app runs the offline model when no provider key is set", async () => {
    const { model } = await import("./assistant/choose-model.js");
    expect(model).toBeInstanceOf(OfflineModel);
  });

  test("with OPENAI_API_KEY set and @ai-sdk/openai not installed, the error says how to fix it", async () => {
    const { chooseModel } = await import("./assistant/choose-model.js");
    await expect(chooseModel({ OPENAI_API_KEY: "sk-test" })).rejects.toThrow(
      /OPENAI_API_KEY is set but @ai-sdk\/openai cannot be loaded; install it with/,
    );
  });

  test("'note: …' streams its answer as text.delta events after a tool call that writes the note", async () => {
    const token = await signDevToken({ userId: "ada", orgId: "acme" });
    const client = createFlowClient<typeof flows>({
      baseUrl: server.url,
      headers: { authorization: `Bearer ${token}` },
    });
    const session = await client.createSession("notebook");
    const { events } = await client.invokeAndStream("notebook", "ask", {
      sessionId: session.id,
      input: { message: "note: call the bank" },
    });
    const seen: FlowStreamEvent[] = [];
    for await (const event of events) seen.push(event);

    const types = seen.map((event) => event.type);
    const call = seen.find((event) => isStreamEvent(event, "tool.call"));
    expect(call).toMatchObject({
      toolName: "writeResourceContent",
      input: { uri: "session/notes/call-the-bank", content: "call the bank" },
    });
    expect(seen.find((event) => isStreamEvent(event, "tool.result"))).toMatchObject({
      toolName: "writeResourceContent",
      output: { uri: "session/notes/call-the-bank", written: true },
    });
    const deltas = seen.flatMap((event) => (isStreamEvent(event, "text.delta") ? [event.delta] : []));
    expect(deltas).toEqual(["Saved ", "your ", "note ", "as ", "session/notes/call-the-bank."]);
    // The note is written before the answer starts, and the answer is the request's output.
    expect(types.indexOf("tool.result")).toBeLessThan(types.indexOf("text.delta"));
    expect(types.at(-1)).toBe("request.completed");
    expect(seen.at(-1)).toMatchObject({ output: "Saved your note as session/notes/call-the-bank." });
    expect(seen.find((event) => isStreamEvent(event, "state_change"))).toMatchObject({
      scope: "session",
      clientData: { asked: 1 },
    });

    const note = client.resources(session.id, "notes").item("notes/call-the-bank");
    expect(await note.content()).toEqual({ content: "call the bank" });
  });

  test("asked about notes, it lists them through globResources", async () => {
    const token = await signDevToken({ userId: "bob", orgId: "acme" });
    const client = createFlowClient<typeof flows>({
      baseUrl: server.url,
      headers: { authorization: `Bearer ${token}` },
    });
    const session = await client.createSession("notebook");
    await client.resources(session.id, "notes").create({ topic: "notes/groceries", content: "milk" });
    const { events } = await client.invokeAndStream("notebook", "ask", {
      sessionId: session.id,
      input: { message: "which notes do I have?" },
    });
    let answer = "";
    let tool = "";
    for await (const event of events) {
      if (isStreamEvent(event, "tool.call")) tool = event.toolName;
      if (isStreamEvent(event, "text.delta")) answer += event.delta;
    }
    expect(tool).toBe("globResources");
    expect(answer).toBe("Your notes: groceries.");
  });
});

describe.skipIf(!hasChromium)(suiteName("the assistant in headless Chromium"), { timeout: 20_000 }, () => {
  test("the streamed answer and the note it wrote appear on the page", async () => {
    const browser = await launchChromium();
    try {
      const errors: string[] = [];
      const page = await openPage(browser, errors);
      await page.goto(server.url);
      await signIn(page, "carol");
      await expect
        .poll(() => page.locator("#session").textContent(), { timeout: waitMs })
        .toMatch(/^session \S+$/);

      await page.fill("#ask", "note: water the plants");
      await page.click("#assistant button[type=submit]");
      await expect
        .poll(() => page.locator("#reply").textContent(), { timeout: waitMs })
        .toBe("Saved your note as session/notes/water-the-plants.");
      await expect
        .poll(() => page.locator("#notes li").allTextContents(), { timeout: waitMs })
        .toEqual(["water-the-plants water the plants delete"]);
      expect(await page.locator("#asked").textContent()).toBe("1 questions asked in this session");
      expect(await page.locator('#log li[data-type="text.delta"]').count()).toBe(5);
      expect(await page.locator('#log li[data-type="tool.call"]').textContent()).toContain(
        "writeResourceContent",
      );
      const path = await screenshot(page, outputFolder("assistant"), "assistant-note");
      expect(statSync(path).size).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
