import { defineFlow, defineResourceCollection, type FlowStores } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withHost } from "../../testing/fixtures.js";
import { createHttpHandler } from "../handler.js";
import type { HttpRequest, HttpResponse } from "../types.js";

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { state: { read: true } },
});
const flow = defineFlow({
  kind: "paged",
  authentication: { requireUser: false, defaultUserId: "dev" },
  resources: { notes },
});

const request = (
  method: string,
  path: string,
  query: Record<string, string> = {},
  body?: string,
): HttpRequest => ({
  method,
  path,
  url: path,
  query,
  headers: {},
  ...(body === undefined ? {} : { rawBody: Buffer.from(body) }),
});

async function openSession(
  handle: (r: HttpRequest) => Promise<HttpResponse>,
  stores: FlowStores,
  count: number,
) {
  const created = await handle(request("POST", "/paged/sessions", {}, "{}"));
  const sessionId = (created.body as { session: { id: string } }).session.id;
  const address = { scope: "session" as const, scopeId: sessionId, bucket: "shared" };
  for (let i = 0; i < count; i++) {
    const key = `notes/${String(i).padStart(3, "0")}`;
    await stores.resources.putState(address, key, { title: key }, { type: "absent" });
  }
  return { sessionId, address };
}

interface Page {
  items: { topic: string; clientData: { title: string } }[];
  pagination: Record<string, unknown> & { nextCursor: string | null };
}

describe("GET /sessions/:id/resources/:ref by cursor", () => {
  it("walks every item once through the route, the first page by offset and the rest by nextCursor", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const handle = createHttpHandler(host);
      const { sessionId } = await openSession(handle, stores, 120);
      const path = `/sessions/${sessionId}/resources/notes`;
      const seen: string[] = [];
      let query: Record<string, string> = { limit: "50" };
      const paginations: Record<string, unknown>[] = [];
      for (;;) {
        const response = await handle(request("GET", path, query));
        expect(response.status).toBe(200);
        // Served from the stored text: the body is the text as sent.
        expect(typeof response.bodyText).toBe("string");
        const page = JSON.parse(response.bodyText!) as Page;
        seen.push(...page.items.map((item) => item.topic));
        paginations.push(page.pagination);
        if (page.pagination.nextCursor === null) break;
        query = { limit: "50", cursor: page.pagination.nextCursor };
      }
      expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => `notes/${String(i).padStart(3, "0")}`));
      expect(paginations).toEqual([
        { offset: 0, limit: 50, total: 120, hasMore: true, nextOffset: 50, nextCursor: expect.any(String) },
        { limit: 50, cursor: expect.any(String), nextCursor: expect.any(String), total: 120, hasMore: true },
        { limit: 50, cursor: expect.any(String), nextCursor: null, total: 120, hasMore: false },
      ]);
    });
  });

  it("a malformed or foreign cursor, or one with an offset, is 400 invalid-pagination, and the store is unchanged", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const handle = createHttpHandler(host);
      const { sessionId, address } = await openSession(handle, stores, 5);
      const path = `/sessions/${sessionId}/resources/notes`;
      const first = (await handle(request("GET", path, { limit: "2" }))).body as Page;
      const cursor = first.pagination.nextCursor!;
      const underA = (await handle(request("GET", path, { limit: "1", topicPrefix: "notes/00" })))
        .body as Page;
      const before = await stores.resources.list(address);
      for (const [query, field] of [
        [{ cursor: "%%%" }, "cursor"],
        [{ cursor: "" }, "cursor"],
        [{ cursor: Buffer.from('{"v":1}').toString("base64url") }, "cursor"],
        [{ cursor: underA.pagination.nextCursor! }, "cursor"],
        [{ cursor, topicPrefix: "notes/00" }, "cursor"],
        [{ cursor, offset: "2" }, "offset"],
      ] as const) {
        const response = await handle(request("GET", path, query));
        expect(response.status).toBe(400);
        expect(response.headers["content-type"]).toBe("application/problem+json");
        expect(response.body).toMatchObject({ status: 400, code: "invalid-pagination", field });
      }
      expect(await stores.resources.list(address)).toEqual(before);
      expect(await stores.requests.listBySession(sessionId, { limit: 10 })).toEqual([]);
      // The genuine cursor still serves the next page.
      const next = (await handle(request("GET", path, { limit: "2", cursor }))).body as Page;
      expect(next.items.map((item) => item.topic)).toEqual(["notes/002", "notes/003"]);
    });
  });
});
