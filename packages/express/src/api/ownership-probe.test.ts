import fc from "fast-check";
import request from "supertest";
import { afterAll, beforeAll, expect, it } from "vitest";
import { API, as, expectNoStack } from "./testing/http.js";
import { headerResolver, lab, releaseHeld, shared } from "./testing/lab-flows.js";
import { finished, invoke, type Lab, running, serveLab } from "./testing/lab-server.js";

/**
 * Specification, Authentication: "No endpoint enumerates across owners." Many principals, every read
 * route and both listing endpoints, drawn at random: a response never carries another owner's data.
 * Each user's data carries a marker (`mark-<user>`) in its session title, note title, note content and
 * request input, so any leak shows up in the response text.
 */

const USERS = ["u0", "u1", "u2", "u3", "u4"] as const;
type User = (typeof USERS)[number];
const mark = (user: string) => `mark-${user}-`;

interface Owned {
  sessions: Record<"lab" | "shared", string>;
  done: Record<"lab" | "shared", string>;
  held: string;
}

let s: Lab;
const owned = {} as Record<User, Owned>;

beforeAll(async () => {
  s = await serveLab({ flows: [lab, shared], resolvePrincipal: headerResolver });
  for (const user of USERS) {
    const sessions = {} as Owned["sessions"];
    const done = {} as Owned["done"];
    for (const flowId of ["lab", "shared"] as const) {
      const created = await request(s.url)
        .post(`${API}/${flowId}/sessions`)
        .set(as(user))
        .send({ title: `${mark(user)}title` })
        .expect(201);
      sessions[flowId] = created.body.session.id;
      const run = await invoke(
        s.url,
        flowId,
        "touch",
        { sessionId: sessions[flowId], input: { key: "n", title: `${mark(user)}note` } },
        as(user),
      );
      await finished(s.stores, run.requestId);
      done[flowId] = run.requestId;
      await request(s.url)
        .patch(`${API}/sessions/${sessions[flowId]}/resources/notes/n/content`)
        .set(as(user))
        .send({ content: `${mark(user)}content` })
        .expect(200);
    }
    // An active request per user, for the active-requests listing.
    const held = await invoke(s.url, "shared", "hold", { sessionId: sessions.shared }, as(user));
    await running(s.stores, held.requestId);
    owned[user] = { sessions, done, held: held.requestId };
  }
});

afterAll(async () => {
  releaseHeld();
  await s.close();
});

const ADDRESSED = [
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/children`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/state`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/debug`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/manifest`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/resources/notes`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/resources/notes/n`,
  (o: Owned, f: "lab" | "shared") => `/sessions/${o.sessions[f]}/resources/notes/n/content`,
  (o: Owned, f: "lab" | "shared") => `/requests/${o.done[f]}`,
  (o: Owned, f: "lab" | "shared") => `/requests/${o.done[f]}/stream`,
  (o: Owned) => `/requests/${o.held}`,
];

const caller = fc.constantFrom<User | "anonymous" | "expired">(...USERS, "anonymous", "expired");
const headersOf = (who: string) => (who === "anonymous" ? {} : as(who));
const foreignMarks = (who: string) => USERS.filter((u) => u !== who).map(mark);

it("addressed reads: the owner gets 200; anyone else gets 401/403 (the manifest aside) and never another owner's data", async () => {
  await fc.assert(
    fc.asyncProperty(
      caller,
      fc.constantFrom(...USERS),
      fc.constantFrom<"lab" | "shared">("lab", "shared"),
      fc.integer({ min: 0, max: ADDRESSED.length - 1 }),
      async (who, target, flowId, route) => {
        const path = ADDRESSED[route]!(owned[target], flowId);
        const res = await request(s.url).get(`${API}${path}`).set(headersOf(who));
        expectNoStack(res);
        for (const foreign of foreignMarks(who)) expect(res.text).not.toContain(foreign);
        if (path.endsWith("/manifest")) expect(res.status).toBe(200);
        else if (who === target) expect(res.status).toBe(200);
        else expect([401, 403]).toContain(res.status);
      },
    ),
    { numRuns: 200 },
  );
});

it("listing endpoints are scoped to the caller, never rejected; userId queries (repeated or not) only narrow", async () => {
  await fc.assert(
    fc.asyncProperty(
      caller,
      fc.array(fc.constantFrom(...USERS), { maxLength: 3 }),
      fc.constantFrom("/sessions", "/active-requests"),
      async (who, narrow, path) => {
        const query = narrow.length === 0 ? "" : `?${narrow.map((u) => `userId=${u}`).join("&")}`;
        const res = await request(s.url).get(`${API}${path}${query}`).set(headersOf(who));
        expectNoStack(res);
        for (const foreign of foreignMarks(who)) expect(res.text).not.toContain(foreign);
        // An unidentified caller is not refused: the list is empty.
        expect(res.status).toBe(200);
        const rows = (res.body.sessions ?? res.body.requests) as Array<{ userId: string }>;
        expect(Array.isArray(rows)).toBe(true);
        if (who === "anonymous" || who === "expired") {
          expect(rows).toEqual([]);
          return;
        }
        for (const row of rows) expect(row.userId).toBe(who);
        const narrowsToCaller = narrow.every((u) => u === who);
        if (!narrowsToCaller) expect(rows).toEqual([]);
        // The caller's own rows are all there, across flows: a session in each, one request held in "shared".
        else expect(rows).toHaveLength(path === "/sessions" ? 2 : 1);
      },
    ),
    { numRuns: 100 },
  );
});
