import { randomBytes } from "node:crypto";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { hasErrorCode, type JsonObject, type RequestRecord, type ScopeAddress } from "@flowrt/core";
import { requestRecord, sessionRecord } from "@flowrt/store-conformance";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPostgresStores } from "./stores.js";
import { backend, closeSharedPglite, createTestStores, type TestStores } from "./testing/databases.js";

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const finished = (id: string, sessionId: string): RequestRecord =>
  requestRecord({
    id,
    sessionId,
    status: "completed",
    createdAt: new Date(0).toISOString(),
    completedAt: new Date(0).toISOString(),
  });

describe(`values PostgreSQL cannot take as JavaScript has them (${backend})`, () => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStores();
  });
  afterEach(() => db.destroy());
  afterAll(() => closeSharedPglite());

  it("a session whose metadata holds the escape \\u0000 does not stop retention for every other request", async () => {
    const { sessions, requests } = db.stores;
    const session = (id: string, metadata: JsonObject) => sessionRecord({ id, metadata });
    expect(await sessions.create(session("nul", { note: "a\u0000b" }))).toBe(true);
    expect(await sessions.create(session("eph", { ephemeral: true, note: "a\u0000b" }))).toBe(true);
    expect(await sessions.create(session("plain", {}))).toBe(true);
    await requests.create(finished("r-nul", "nul"));
    await requests.create(finished("r-eph", "eph"));
    await requests.create(finished("r-plain", "plain"));
    expect(await requests.purgeFinished({ maxAgeMs: 0, now: Date.now() })).toBe(3);
    expect(await requests.get("r-plain")).toBeNull();
    // Its metadata cannot be read in SQL, so the session is kept (not retired), with its metadata intact.
    expect((await sessions.get("eph"))?.metadata).toEqual({ ephemeral: true, note: "a\u0000b" });
  });

  it("ids, scope ids and content with a lone surrogate are refused (invalid-request), never stored as U+FFFD", async () => {
    const { sessions, scopeState, resources } = db.stores;
    const alice = (scopeId: string): ScopeAddress => ({ scope: "user", scopeId, bucket: "shared" });
    const refused = [
      () => scopeState.put(alice("alice\ud800"), { secret: "alice's" }, { type: "any" }),
      () => sessions.create(sessionRecord({ id: "X\udc00" })),
      () => resources.putContent(alice("alice"), "notes/a", "x\ud800y"),
    ];
    for (const attempt of refused) {
      const error = await rejection(attempt());
      expect(hasErrorCode(error, "invalid-request")).toBe(true);
      expect((error as Error).message).toContain("lone surrogate");
    }
    expect(await scopeState.get(alice("alice\ufffd"))).toBeNull();
    expect(await sessions.get("X\ufffd")).toBeNull();
    // Resource keys travel as UTF-16 bytes (see key-codec.ts): a lone surrogate there is kept exactly.
    await resources.putState(alice("alice"), "notes/\ud800", { n: 1 }, { type: "absent" });
    expect(await resources.getState(alice("alice"), "notes/\udc00")).toBeNull();
    const page = await resources.list(alice("alice"), { prefix: "notes/", limit: 10 });
    expect(page.items.map((r) => r.key)).toEqual(["notes/\ud800"]);
    expect(await resources.getContent(alice("alice"), "notes/a")).toBeNull();
    // A well-formed pair (an emoji) is ordinary text.
    expect(await scopeState.put(alice("alice\ud83d\ude00"), { n: 1 }, { type: "any" })).toMatchObject({
      ok: true,
    });
  });

  it("ids, titles, query values and content holding U+0000 are refused (invalid-request), never a raw server error", async () => {
    const { sessions, requests, resources } = db.stores;
    const at: ScopeAddress = { scope: "session", scopeId: "s", bucket: "shared" };
    for (const attempt of [
      () => requests.get("a\u0000b"),
      () => requests.listActive({ userId: "a\u0000b" }),
      () => sessions.list({ userId: "u\u0000" }),
      () => sessions.create(sessionRecord({ id: "nul-title", title: "a\u0000" })),
      () => resources.putContent(at, "notes/a", "x\u0000y"),
    ]) {
      const error = await rejection(attempt());
      expect(hasErrorCode(error, "invalid-request")).toBe(true);
      expect((error as Error).message).toContain("U+0000");
    }
    expect(await sessions.get("nul-title")).toBeNull();
    expect(await resources.getContent(at, "notes/a")).toBeNull();
    // In JSON values NUL is escaped text, stored and read back as given.
    await resources.putState(at, "notes/j", { s: "a\u0000b" }, { type: "absent" });
    expect((await resources.getState(at, "notes/j"))?.state).toEqual({ s: "a\u0000b" });
  });

  it("a state that is not a JSON object (array, string, null) is refused, not stored as something else", async () => {
    const at: ScopeAddress = { scope: "session", scopeId: "s", bucket: "shared" };
    for (const bad of [[1], "s", null, 3]) {
      for (const attempt of [
        () => db.stores.resources.putState(at, "k", bad as never, { type: "any" }),
        () => db.stores.scopeState.put(at, bad as never, { type: "any" }),
      ]) {
        const error = await rejection(attempt());
        expect(hasErrorCode(error, "invalid-request")).toBe(true);
        expect((error as Error).message).toMatch(/must be a JSON object/);
      }
    }
    expect(await db.stores.resources.getState(at, "k")).toBeNull();
    expect(await db.stores.scopeState.get(at)).toBeNull();
  });

  it("a key longer than PostgreSQL's index can hold is invalid-request, not a raw database error", async () => {
    const at: ScopeAddress = { scope: "session", scopeId: "s", bucket: "shared" };
    const key = `notes/${randomBytes(4000).toString("hex")}`;
    const error = await rejection(db.stores.resources.putState(at, key, { n: 1 }, { type: "absent" }));
    expect(hasErrorCode(error, "invalid-request")).toBe(true);
    expect((error as Error).message).toContain("too long");
    expect(await db.stores.resources.count(at, "notes/")).toBe(0);
  });
});

describe("a database that cannot be reached", () => {
  it("one that accepts the connection and never answers fails the call after connectionTimeoutMs (store-error)", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const stores = createPostgresStores({
      connectionString: `postgres://flowrt:x@127.0.0.1:${port}/none`,
      connectionTimeoutMs: 200,
      onError: () => {},
    });
    try {
      const started = Date.now();
      const error = await rejection(stores.sessions.get("s"));
      expect(hasErrorCode(error, "store-error")).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await stores.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("is store-error (503, retryable), not an unclassified failure", async () => {
    const stores = createPostgresStores({
      connectionString: "postgres://flowrt:x@127.0.0.1:1/none",
      onError: () => {},
    });
    try {
      const error = await rejection(stores.sessions.get("s"));
      expect(hasErrorCode(error, "store-error")).toBe(true);
      expect((error as { retryable?: boolean }).retryable).toBe(true);
    } finally {
      await stores.close();
    }
  });
});
