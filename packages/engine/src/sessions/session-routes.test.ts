import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_SESSION_METADATA_BYTES } from "./session-patch.js";
import { releaseHolds } from "./testing/lifecycle-flows.js";
import { type LifecycleServer, serveLifecycle } from "./testing/lifecycle-server.js";
import { census, censusOf } from "./testing/store-census.js";

/**
 * The conversation lifecycle routes over real HTTP, on the memory store: `PATCH /sessions/:id`,
 * `GET /sessions/:id/requests`, `DELETE /sessions/:id`, and the paged listings. Every new route is owner-checked as
 * every addressed route is (401 with no principal, 403 for another user), and a refusal writes and emits nothing.
 */

let s: LifecycleServer;
beforeEach(async () => {
  s = await serveLifecycle();
});
afterEach(async () => {
  releaseHolds();
  await s.close();
});

const ADA = { user: "ada" };
const BOB = { user: "bob" };

async function newSession(user = "ada", body: Record<string, unknown> = {}): Promise<string> {
  const created = await s.call("POST", "/notes/sessions", { user, body });
  expect(created.status).toBe(201);
  return created.body.session.id;
}

/** What the stores hold, for "a refusal wrote nothing, emitted nothing". */
const everything = (sessions: string[], requests: string[] = []) =>
  census(s.stores, { sessions, requests, users: ["ada", "bob"] });

describe("PATCH /sessions/:id", () => {
  it("renames and merges metadata one level deep (null removes a key); answers { session } as GET does", async () => {
    const id = await newSession("ada", { title: "first", metadata: { a: 1, b: { deep: true }, c: "x" } });
    const patched = await s.call("PATCH", `/sessions/${id}`, {
      ...ADA,
      body: { title: "second", metadata: { b: { other: 1 }, c: null, d: [1, 2] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.session).toMatchObject({
      id,
      title: "second",
      metadata: { a: 1, b: { other: 1 }, d: [1, 2] },
    });
    expect(patched.body.session.metadata).not.toHaveProperty("c");
    const read = await s.call("GET", `/sessions/${id}`, ADA);
    expect(read.body).toEqual(patched.body);
    // `title: null` removes the title; an empty body changes nothing.
    const untitled = await s.call("PATCH", `/sessions/${id}`, { ...ADA, body: { title: null } });
    expect(untitled.body.session).not.toHaveProperty("title");
    const same = await s.call("PATCH", `/sessions/${id}`, { ...ADA, body: {} });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(untitled.body);
  });

  it("401 without a principal, 403 for another user, 404 for no session: nothing written, nothing emitted", async () => {
    const id = await newSession();
    const { requestId } = await s.invoke("notes", "hold", "ada", { sessionId: id });
    await s.until(requestId, ["running"]);
    const before = JSON.stringify(await everything([id], [requestId]));
    const body = { title: "stolen", metadata: { owner: "bob" } };
    expect((await s.call("PATCH", `/sessions/${id}`, { body })).status).toBe(401);
    const forbidden = await s.call("PATCH", `/sessions/${id}`, { ...BOB, body });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("forbidden");
    // The owner check comes first: another user's malformed body is still a 403.
    expect((await s.call("PATCH", `/sessions/${id}`, { ...BOB, body: { title: 5 } })).status).toBe(403);
    expect((await s.call("PATCH", "/sessions/nope", { ...ADA, body })).status).toBe(404);
    expect(JSON.stringify(await everything([id], [requestId]))).toBe(before);
  });

  it("bad shapes are 400 invalid-request naming the field, with nothing written", async () => {
    const id = await newSession("ada", { title: "kept", metadata: { big: "x".repeat(10_000) } });
    const before = JSON.stringify(await everything([id]));
    const cases: [unknown, string][] = [
      [{ title: 5 }, "title"],
      [{ title: "t".repeat(201) }, "title"],
      [{ metadata: [1] }, "metadata"],
      [{ metadata: "x" }, "metadata"],
      [{ userId: "bob" }, "userId"],
      [{ title: "ok", flowId: "journal" }, "flowId"],
      // 10 000 + 7 000 bytes once merged: over the 16 KiB limit.
      [{ metadata: { more: "y".repeat(7_000) } }, "metadata"],
    ];
    for (const [body, field] of cases) {
      const answer = await s.call("PATCH", `/sessions/${id}`, { ...ADA, body });
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(answer.body).toMatchObject({ code: "invalid-request", field });
    }
    const tooBig = await s.call("PATCH", `/sessions/${id}`, {
      ...ADA,
      body: { metadata: { more: "y".repeat(7_000) } },
    });
    expect(tooBig.body.limit).toBe(MAX_SESSION_METADATA_BYTES);
    const notAnObject = await s.call("PATCH", `/sessions/${id}`, { ...ADA, body: [1] });
    expect(notAnObject.status).toBe(400);
    expect(JSON.stringify(await everything([id]))).toBe(before);
    // At the limits: 200 characters (an emoji is one), and a merge that shrinks the metadata is always allowed.
    const emoji = "😀".repeat(200);
    const atLimit = await s.call("PATCH", `/sessions/${id}`, {
      ...ADA,
      body: { title: emoji, metadata: { big: null, more: "y".repeat(7_000) } },
    });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.session.title).toBe(emoji);
  });

  it("two concurrent patches of different keys both land", async () => {
    const id = await newSession();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.call("PATCH", `/sessions/${id}`, { ...ADA, body: { metadata: { [`k${i}`]: i } } }),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const read = await s.call("GET", `/sessions/${id}`, ADA);
    expect(read.body.session.metadata).toEqual(
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])),
    );
  });
});

describe("GET /sessions/:id/requests", () => {
  it("the session's requests, newest first, with the summary fields and only the error's code (and errorId)", async () => {
    const id = await newSession();
    const done = await s.invoke("notes", "touch", "ada", { sessionId: id });
    await s.until(done.requestId, ["completed"]);
    const failed = await s.invoke("notes", "fail", "ada", { sessionId: id });
    await s.until(failed.requestId, ["failed"]);
    const held = await s.invoke("notes", "hold", "ada", { sessionId: id });
    await s.until(held.requestId, ["running"]);
    // Another session's request is not listed.
    await s.invoke("notes", "touch", "ada");
    const answer = await s.call("GET", `/sessions/${id}/requests`, ADA);
    expect(answer.status).toBe(200);
    expect(answer.body.nextCursor).toBeNull();
    const rows = answer.body.requests;
    expect(rows.map((r: { requestId: string }) => r.requestId)).toEqual([
      held.requestId,
      failed.requestId,
      done.requestId,
    ]);
    expect(rows[0]).toEqual({
      requestId: held.requestId,
      status: "running",
      action: "hold",
      createdAt: expect.any(String),
      startedAt: expect.any(String),
    });
    expect(rows[1]).toEqual({
      requestId: failed.requestId,
      status: "failed",
      action: "fail",
      createdAt: expect.any(String),
      startedAt: expect.any(String),
      completedAt: expect.any(String),
      // Issue 22: a server-side failure's errorId too (the client quotes it); still no message.
      error: { code: "internal-error", errorId: expect.any(String) },
    });
    expect(rows[2]).toMatchObject({ status: "completed", action: "touch" });
    expect(rows[2]).not.toHaveProperty("output");
  });

  it("pages by an opaque cursor: every request exactly once, in order; nextCursor null on the last page", async () => {
    const id = await newSession();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { requestId } = await s.invoke("notes", "touch", "ada", { sessionId: id });
      await s.until(requestId, ["completed"]);
      made.push(requestId);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? "?limit=3" : `?limit=3&cursor=${encodeURIComponent(cursor)}`;
      const page = await s.call("GET", `/sessions/${id}/requests${query}`, ADA);
      expect(page.status).toBe(200);
      expect(page.body.requests.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.requests.map((r: { requestId: string }) => r.requestId));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
  });

  it("401/403 to anyone but the owner; a malformed limit or cursor is 400 invalid-pagination", async () => {
    const id = await newSession();
    expect((await s.call("GET", `/sessions/${id}/requests`)).status).toBe(401);
    expect((await s.call("GET", `/sessions/${id}/requests`, BOB)).status).toBe(403);
    for (const query of [
      "limit=0",
      "limit=-1",
      "limit=abc",
      "cursor=***",
      "cursor=eyJrIjoxfQ",
      "cursor=bm90anNvbg",
    ]) {
      const answer = await s.call("GET", `/sessions/${id}/requests?${query}`, ADA);
      expect(answer.status, query).toBe(400);
      expect(answer.body.code, query).toBe("invalid-pagination");
    }
    // A cursor made by another listing is refused too.
    for (let i = 0; i < 2; i++) await newSession();
    const sessions = await s.call("GET", "/sessions?limit=1", ADA);
    const foreign = sessions.body.nextCursor as string;
    expect(typeof foreign).toBe("string");
    const answer = await s.call("GET", `/sessions/${id}/requests?cursor=${encodeURIComponent(foreign)}`, ADA);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: "invalid-pagination", field: "cursor" });
  });
});

describe("GET /sessions and GET /active-requests page by cursor", () => {
  it("/sessions merges the flows' scopes by keyset: every session once, newest first, across pages", async () => {
    const made: string[] = [];
    for (let i = 0; i < 11; i++) {
      const flow = i % 2 === 0 ? "notes" : "journal";
      const created = await s.call("POST", `/${flow}/sessions`, { ...ADA, body: {} });
      made.push(created.body.session.id);
    }
    await newSession("bob");
    const full = await s.call("GET", "/sessions?limit=200", ADA);
    expect(full.body.nextCursor).toBeNull();
    expect(full.body.sessions).toHaveLength(11);
    const order = full.body.sessions.map((x: { id: string }) => x.id);
    expect([...order].sort()).toEqual([...made].sort());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "?limit=4" : `?limit=4&cursor=${encodeURIComponent(cursor)}`;
      const page = await s.call("GET", `/sessions${query}`, ADA);
      expect(page.status).toBe(200);
      seen.push(...page.body.sessions.map((x: { id: string }) => x.id));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(order);
  });

  it("/sessions serves 200 by default (as before it paged) and at most 200, saying where the next page starts", async () => {
    for (let i = 0; i < 205; i++)
      await s.host.createSession("notes", { source: "test", principal: { userId: "ada" } });
    const first = await s.call("GET", "/sessions", ADA);
    expect(first.body.sessions).toHaveLength(200);
    expect(typeof first.body.nextCursor).toBe("string");
    const capped = await s.call("GET", "/sessions?limit=500", ADA);
    expect(capped.body.sessions).toHaveLength(200);
    const rest = await s.call(
      "GET",
      `/sessions?limit=500&cursor=${encodeURIComponent(capped.body.nextCursor)}`,
      ADA,
    );
    expect(rest.body.sessions).toHaveLength(5);
    expect(rest.body.nextCursor).toBeNull();
    // An unidentified caller is still not refused.
    expect(await s.call("GET", "/sessions?limit=2")).toMatchObject({
      status: 200,
      body: { sessions: [], nextCursor: null },
    });
    expect((await s.call("GET", "/sessions?cursor=!!", ADA)).body.code).toBe("invalid-pagination");
  });

  it("/active-requests pages the caller's active requests oldest first", async () => {
    const id = await newSession();
    const held: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { requestId } = await s.invoke("notes", "hold", "ada", { sessionId: id });
      await s.until(requestId, ["running"]);
      held.push(requestId);
    }
    const bobs = await s.invoke("notes", "hold", "bob");
    await s.until(bobs.requestId, ["running"]);
    const all = await s.call("GET", "/active-requests", ADA);
    expect(all.body.nextCursor).toBeNull();
    const order = all.body.requests.map((r: { requestId: string }) => r.requestId);
    expect([...order].sort()).toEqual([...held].sort());
    const first = await s.call("GET", "/active-requests?limit=2", ADA);
    expect(first.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual(order.slice(0, 2));
    const second = await s.call(
      "GET",
      `/active-requests?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      ADA,
    );
    expect(second.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual(order.slice(2));
    expect(second.body.nextCursor).toBeNull();
    expect((await s.call("GET", "/active-requests?limit=x", ADA)).status).toBe(400);
  });
});

describe("DELETE /sessions/:id", () => {
  it("401 without a principal, 403 for another user: nothing removed, nothing aborted, nothing emitted", async () => {
    const id = await newSession();
    const { requestId } = await s.invoke("notes", "hold", "ada", { sessionId: id });
    await s.until(requestId, ["running"]);
    const child = await s.host.createSession(
      "notes",
      { source: "test", principal: { userId: "ada" } },
      {
        parentSessionId: id,
      },
    );
    const before = JSON.stringify(await everything([id, child.id], [requestId]));
    expect((await s.call("DELETE", `/sessions/${id}`)).status).toBe(401);
    const forbidden = await s.call("DELETE", `/sessions/${id}`, BOB);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("forbidden");
    expect(JSON.stringify(await everything([id, child.id], [requestId]))).toBe(before);
    expect((await s.stores.requests.get(requestId))?.status).toBe("running");
  });

  it("200 with counts; the session then reads as 404 everywhere, and a second DELETE is 404", async () => {
    const id = await newSession();
    const done = await s.invoke("notes", "touch", "ada", { sessionId: id });
    await s.until(done.requestId, ["completed"]);
    const removed = await s.call("DELETE", `/sessions/${id}`, ADA);
    expect(removed.status).toBe(200);
    expect(removed.body.removed).toMatchObject({ sessions: 1, requests: 1, states: 1 });
    expect(removed.body.removed.events).toBeGreaterThan(1);
    for (const path of [`/sessions/${id}`, `/sessions/${id}/state`, `/sessions/${id}/requests`]) {
      expect((await s.call("GET", path, ADA)).status, path).toBe(404);
    }
    expect((await s.call("GET", `/requests/${done.requestId}`, ADA)).status).toBe(404);
    const again = await s.call("DELETE", `/sessions/${id}`, ADA);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("session-not-found");
  });
});

describe("a closed host", () => {
  it("refuses PATCH and DELETE with 503 host-not-started, writing nothing; reads stay served", async () => {
    const id = await newSession("ada", { title: "kept" });
    await s.host.close();
    const before = JSON.stringify(await everything([id]));
    for (const [method, body] of [
      ["PATCH", { title: "x" }],
      ["DELETE", undefined],
    ] as const) {
      const answer = await s.call(method, `/sessions/${id}`, { ...ADA, ...(body ? { body } : {}) });
      expect(answer.status, method).toBe(503);
      expect(answer.body.code).toBe("host-not-started");
    }
    expect((await s.call("GET", `/sessions/${id}/requests`, ADA)).status).toBe(200);
    expect(JSON.stringify(await everything([id]))).toBe(before);
  });
});

describe("a session marked deleting", () => {
  it("reads as session-not-found on every route and in every listing; its owner's retried DELETE finishes it", async () => {
    const parent = await newSession();
    const id = await newSession();
    await s.host.createSession(
      "notes",
      { source: "test", principal: { userId: "ada" } },
      {
        parentSessionId: parent,
      },
    );
    const child = (
      await s.host.createSession(
        "notes",
        { source: "test", principal: { userId: "ada" } },
        {
          parentSessionId: parent,
        },
      )
    ).id;
    const done = await s.invoke("notes", "touch", "ada", { sessionId: id });
    await s.until(done.requestId, ["completed"]);
    const held = await s.invoke("notes", "hold", "ada", { sessionId: id });
    await s.until(held.requestId, ["running"]);
    // A removal that stopped right after its first step.
    await s.stores.sessions.markDeleting(id);
    await s.stores.sessions.markDeleting(child);
    for (const [method, path] of [
      ["GET", `/sessions/${id}`],
      ["GET", `/sessions/${id}/state`],
      ["GET", `/sessions/${id}/children`],
      ["GET", `/sessions/${id}/manifest`],
      ["GET", `/sessions/${id}/debug`],
      ["GET", `/sessions/${id}/requests`],
      ["GET", `/sessions/${id}/resources/items`],
      ["PATCH", `/sessions/${id}`],
    ] as const) {
      const answer = await s.call(method, path, {
        ...ADA,
        ...(method === "PATCH" ? { body: { title: "x" } } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.code, `${method} ${path}`).toBe("session-not-found");
    }
    expect((await s.call("GET", `/requests/${done.requestId}`, ADA)).status).toBe(404);
    const action = await s.call("POST", "/notes/actions/touch", {
      ...ADA,
      body: { sessionId: id, input: {} },
    });
    expect(action.status).toBe(404);
    const listed = await s.call("GET", "/sessions", ADA);
    expect(listed.body.sessions.map((x: { id: string }) => x.id)).not.toContain(id);
    const active = await s.call("GET", "/active-requests", ADA);
    expect(active.body.requests).toEqual([]);
    const children = await s.call("GET", `/sessions/${parent}/children`, ADA);
    expect(children.body.sessions.map((x: { id: string }) => x.id)).not.toContain(child);
    // Another user is still refused by the owner check (it reads the record as stored); the owner finishes it.
    expect((await s.call("DELETE", `/sessions/${id}`, BOB)).status).toBe(403);
    const finished = await s.call("DELETE", `/sessions/${id}`, ADA);
    expect(finished.status).toBe(200);
    expect(finished.body.removed).toMatchObject({ sessions: 1, requests: 2 });
    expect(await s.stores.sessions.get(id)).toBeNull();
    expect(await s.stores.requests.get(held.requestId)).toBeNull();
  });
});

describe("the OpenAPI document", () => {
  it("describes the new routes from their route docs: statuses, bodies, and the listings' page parameters", async () => {
    const doc = (await s.call("GET", "/openapi.json")).body;
    const op = (path: string, method: string) => doc.paths[path]?.[method];
    const statuses = (path: string, method: string) => Object.keys(op(path, method)?.responses ?? {}).sort();
    expect(statuses("/sessions/{sessionId}", "patch")).toEqual(
      ["200", "400", "401", "403", "404", "413", "415", "503", "default"].sort(),
    );
    expect(op("/sessions/{sessionId}", "patch").requestBody.content["application/json"].schema).toMatchObject(
      {
        additionalProperties: false,
        properties: { title: { maxLength: 200 }, metadata: { type: "object" } },
      },
    );
    expect(statuses("/sessions/{sessionId}", "delete")).toEqual(
      ["200", "401", "403", "404", "415", "503", "default"].sort(),
    );
    expect(
      op("/sessions/{sessionId}", "delete").responses["200"].content["application/json"].schema,
    ).toMatchObject({
      properties: {
        removed: { required: ["sessions", "requests", "events", "states", "resources", "contents"] },
      },
    });
    expect(statuses("/sessions/{sessionId}/requests", "get")).toEqual(
      ["200", "400", "401", "403", "404", "default"].sort(),
    );
    for (const path of ["/sessions", "/active-requests", "/sessions/{sessionId}/requests"]) {
      const names = op(path, "get").parameters.map((p: { name: string }) => p.name);
      expect(names, path).toEqual(expect.arrayContaining(["limit", "cursor"]));
    }
  });
});

describe("owner probe over the new routes", () => {
  it("every caller × every user's session: only the owner gets 200; anyone else 401/403, and the stores do not move", async () => {
    const users = ["ada", "bob", "carol"];
    const owned: Record<string, { sessionId: string; requestId: string }> = {};
    for (const user of users) {
      const sessionId = await newSession(user, { title: `mark-${user}` });
      const { requestId } = await s.invoke("notes", "hold", user, { sessionId });
      await s.until(requestId, ["running"]);
      owned[user] = { sessionId, requestId };
    }
    const ids = {
      sessions: users.map((u) => owned[u]!.sessionId),
      requests: users.map((u) => owned[u]!.requestId),
      users,
    };
    const before = JSON.stringify(await census(s.stores, ids));
    const routes = [
      (id: string) => ["PATCH", `/sessions/${id}`, { title: "taken", metadata: { by: "someone" } }] as const,
      (id: string) => ["GET", `/sessions/${id}/requests`, undefined] as const,
      (id: string) => ["DELETE", `/sessions/${id}`, undefined] as const,
    ];
    for (const caller of [...users, undefined]) {
      for (const target of users) {
        if (caller === target) continue;
        for (const route of routes) {
          const [method, path, body] = route(owned[target]!.sessionId);
          const answer = await s.call(method, path, {
            ...(caller ? { user: caller } : {}),
            ...(body ? { body } : {}),
          });
          expect(answer.status, `${caller} ${method} ${path}`).toBe(caller ? 403 : 401);
          for (const user of users)
            if (user !== caller) expect(JSON.stringify(answer.body)).not.toContain(`mark-${user}`);
        }
      }
    }
    expect(JSON.stringify(await census(s.stores, ids))).toBe(before);
    // Each owner reaches their own session, and removing it leaves the others' as they were.
    for (const user of users) {
      const { sessionId } = owned[user]!;
      expect((await s.call("GET", `/sessions/${sessionId}/requests`, { user })).status).toBe(200);
      expect(
        (await s.call("PATCH", `/sessions/${sessionId}`, { user, body: { title: "mine" } })).status,
      ).toBe(200);
    }
    const others = {
      sessions: ids.sessions.slice(1),
      requests: ids.requests.slice(1),
      users: ["bob", "carol"],
    };
    const othersBefore = JSON.stringify(await censusOf(s.stores, others));
    expect((await s.call("DELETE", `/sessions/${owned.ada!.sessionId}`, ADA)).status).toBe(200);
    expect(await s.stores.sessions.get(owned.ada!.sessionId)).toBeNull();
    expect(JSON.stringify(await censusOf(s.stores, others))).toBe(othersBefore);
  });
});
