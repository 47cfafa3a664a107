import type { FlowStores, RequestRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { isoAt, requestRecord, uid } from "../fixtures.js";

/** The contract's order for a session's requests: `createdAt` descending, then `id` descending. */
const newestFirst = (a: RequestRecord, b: RequestRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;

async function pagesOf(stores: FlowStores, sessionId: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: { createdAt: string; id: string } | undefined;
  for (let round = 0; round < 100; round++) {
    const page = await stores.requests.listBySession(sessionId, { limit, ...(after ? { after } : {}) });
    expect(page.length).toBeLessThanOrEqual(limit);
    if (page.length === 0) return pages;
    pages.push(page.map((r) => r.id));
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  throw new Error("keyset paging never ended");
}

export const requestListingCases = [
  defineCase(
    "requests/list-by-session",
    "listBySession returns a session's requests newest first (ties by id descending), only that session's, as stored",
    async (stores) => {
      const sessionId = uid("session");
      const base = Date.parse("2024-08-01T00:00:00.000Z");
      // Two runs per instant, written out of order, by different users and statuses.
      const records = Array.from({ length: 6 }, (_, i) =>
        requestRecord({
          sessionId,
          createdAt: isoAt(base, Math.floor(i / 2) * 1000),
          status: i % 3 === 0 ? "completed" : "queued",
          input: { i },
        }),
      );
      for (const record of [records[3]!, records[0]!, records[5]!, records[1]!, records[4]!, records[2]!]) {
        await stores.requests.create(record);
      }
      const elsewhere = requestRecord({ sessionId: uid("session"), createdAt: isoAt(base, 1500) });
      await stores.requests.create(elsewhere);
      await stores.requests.update(records[4]!.id, 1, { status: "running" });
      const ordered = [...records].sort(newestFirst);
      const stored = await Promise.all(ordered.map((r) => stores.requests.get(r.id)));

      expect(await stores.requests.listBySession(sessionId, { limit: 100 })).toEqual(stored);
      expect(await stores.requests.listBySession(sessionId, { limit: 2 })).toEqual(stored.slice(0, 2));
      expect(await stores.requests.listBySession(sessionId, { limit: 0 })).toEqual([]);
      expect(await stores.requests.listBySession(uid("session"), { limit: 10 })).toEqual([]);
      expect(await stores.requests.listBySession(elsewhere.sessionId, { limit: 10 })).toEqual([elsewhere]);

      // Reads are copies.
      const [first] = await stores.requests.listBySession(sessionId, { limit: 1 });
      (first!.input as { i: number }).i = 99;
      expect((await stores.requests.get(first!.id))?.input).toEqual(stored[0]!.input);
    },
  ),

  defineCase(
    "requests/list-by-session-after",
    "listBySession pages by keyset: every request once, ties split across pages, a position that is no request's works",
    async (stores) => {
      const sessionId = uid("session");
      const base = Date.parse("2024-08-02T00:00:00.000Z");
      const records = Array.from({ length: 10 }, (_, i) =>
        requestRecord({ sessionId, createdAt: isoAt(base, Math.floor(i / 3) * 1000) }),
      );
      for (const record of [...records].reverse()) await stores.requests.create(record);
      await stores.requests.create(requestRecord({ sessionId: uid("session"), createdAt: isoAt(base, 500) }));
      const ordered = [...records].sort(newestFirst).map((r) => r.id);

      for (const limit of [1, 2, 3, 4, 10])
        expect((await pagesOf(stores, sessionId, limit)).flat()).toEqual(ordered);

      const at = (i: number) => records.find((r) => r.id === ordered[i])!;
      const tied = at(4);
      expect(
        (
          await stores.requests.listBySession(sessionId, {
            limit: 100,
            after: { createdAt: tied.createdAt, id: tied.id },
          })
        ).map((r) => r.id),
      ).toEqual(ordered.slice(5));
      // Between the two older instants, with an id that sorts anywhere.
      const between = { createdAt: isoAt(base, 1500), id: "~" };
      expect(
        (await stores.requests.listBySession(sessionId, { limit: 2, after: between })).map((r) => r.id),
      ).toEqual(
        [...records]
          .filter((r) => r.createdAt < between.createdAt)
          .sort(newestFirst)
          .slice(0, 2)
          .map((r) => r.id),
      );
      const last = at(9);
      expect(
        await stores.requests.listBySession(sessionId, {
          limit: 5,
          after: { createdAt: last.createdAt, id: last.id },
        }),
      ).toEqual([]);
    },
  ),
] as const;
