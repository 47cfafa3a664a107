import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ReferenceServer, startReferenceServer } from "./app.js";
import { signDevToken } from "./auth/dev-tokens.js";

const dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-"));
let server: ReferenceServer;
let api: string;

const tokens = new Map<string, string>();

beforeAll(async () => {
  for (const user of ["ada", "bob"]) tokens.set(user, await signDevToken({ userId: user, orgId: "acme" }));
  server = await startReferenceServer({ port: 0, dataDir });
  api = `${server.url}/api/flows`;
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The caller's credential: a development token (HS256 JWT) for `user` in org `acme`. */
const as = (user: string) => ({ authorization: `Bearer ${tokens.get(user)}` });

async function finished(requestId: string, user = "ada") {
  for (;;) {
    const { body } = await request(api).get(`/requests/${requestId}`).set(as(user)).expect(200);
    if (["completed", "failed", "aborted"].includes(body.request.status)) return body.request;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("reference notebook", () => {
  let sessionId: string;
  const notesPath = () => `/sessions/${sessionId}/resources/notes`;
  const item = (topic: string) => `${notesPath()}/${encodeURIComponent(topic)}`;

  test("sessions belong to the token's user; no token or a forged one is 401", async () => {
    await request(api).post("/notebook/sessions").send({ userId: "ada" }).expect(401);
    const forged = `${tokens.get("ada")!.slice(0, -2)}AA`;
    await request(api)
      .post("/notebook/sessions")
      .set({ authorization: `Bearer ${forged}` })
      .send({})
      .expect(401);
    const { body } = await request(api)
      .post("/notebook/sessions")
      .set(as("ada"))
      .send({ userId: "eve" })
      .expect(201);
    expect(body.session).toMatchObject({ flowId: "notebook", userId: "ada" });
    sessionId = body.session.id;
    await request(api).get(`/sessions/${sessionId}`).set(as("bob")).expect(403);
  });

  test("notes: create, list, read state and content, replace content, delete", async () => {
    await request(api)
      .post(notesPath())
      .set(as("ada"))
      .send({ topic: "notes/groceries", content: "milk" })
      .expect(201);
    await request(api).post(notesPath()).set(as("ada")).send({ topic: "notes/groceries" }).expect(409);

    const page = await request(api).get(notesPath()).set(as("ada")).expect(200);
    expect(page.body.items).toEqual([{ topic: "notes/groceries", clientData: { title: "", pinned: false } }]);
    expect(page.body.pagination).toMatchObject({ total: 1, hasMore: false });
    const state = await request(api).get(item("notes/groceries")).set(as("ada")).expect(200);
    expect(state.body).toEqual({ topic: "notes/groceries", clientData: { title: "", pinned: false } });

    const content = await request(api)
      .get(`${item("notes/groceries")}/content`)
      .set(as("ada"))
      .expect(200);
    expect(content.body).toEqual({ content: "milk" });
    await request(api)
      .patch(`${item("notes/groceries")}/content`)
      .set(as("ada"))
      .send({ content: "milk, eggs" })
      .expect(200);
    const replaced = await request(api)
      .get(`${item("notes/groceries")}/content`)
      .set(as("ada"))
      .expect(200);
    expect(replaced.body).toEqual({ content: "milk, eggs" });

    // Another user cannot touch ada's notes.
    await request(api).delete(item("notes/groceries")).set(as("bob")).expect(403);
    await request(api).delete(item("notes/groceries")).set(as("ada")).expect(200);
    const empty = await request(api).get(notesPath()).set(as("ada")).expect(200);
    expect(empty.body.items).toEqual([]);
    await request(api).delete(item("notes/groceries")).set(as("ada")).expect(200);
  });

  test("the addNote action writes a note and the profile; the snapshot shows the projection only", async () => {
    const invoked = await request(api)
      .post("/notebook/actions/addNote")
      .set(as("ada"))
      .send({ sessionId, input: { title: "Trip plan", text: "Pack boots." } })
      .expect(202);
    const done = await finished(invoked.body.requestId);
    expect(done).toMatchObject({ status: "completed", output: { topic: "notes/trip-plan", noteCount: 1 } });

    const renamed = await request(api)
      .post("/notebook/actions/setDisplayName")
      .set(as("ada"))
      .send({ sessionId, input: { displayName: "Ada" } })
      .expect(202);
    expect((await finished(renamed.body.requestId)).status).toBe("completed");

    const snapshot = await request(api).get(`/sessions/${sessionId}/state`).set(as("ada")).expect(200);
    expect(snapshot.body.resources.session.notes.count).toBe(1);
    expect(snapshot.body.resources.session.notes.prefetched).toEqual([
      { topic: "notes/trip-plan", clientData: { title: "Trip plan", pinned: false } },
    ]);
    // lastNoteTitle is not exposed.
    expect(snapshot.body.resources.user.profile).toEqual({
      clientData: { displayName: "Ada", noteCount: 1 },
    });
    const text = await request(api)
      .get(`${item("notes/trip-plan")}/content`)
      .set(as("ada"))
      .expect(200);
    expect(text.body).toEqual({ content: "Pack boots." });
  });

  test("the profile follows the user into a new session", async () => {
    const { body } = await request(api).post("/notebook/sessions").set(as("ada")).send({}).expect(201);
    const snapshot = await request(api).get(`/sessions/${body.session.id}/state`).set(as("ada")).expect(200);
    expect(snapshot.body.resources.user.profile.clientData).toEqual({ displayName: "Ada", noteCount: 1 });
    expect(snapshot.body.resources.session.notes.count).toBe(0);
  });

  test("bad action input is refused before anything is written", async () => {
    const statuses = ["queued", "running", "completed", "failed", "aborted"] as const;
    const requestsBefore = await server.host.stores.requests.listByStatus([...statuses]);
    const refused = await request(api)
      .post("/notebook/actions/addNote")
      .set(as("ada"))
      .send({ sessionId, input: { title: "" } })
      .expect(400);
    expect(refused.body).toMatchObject({ code: "invalid-input", field: "title" });
    const active = await request(api).get("/active-requests").set(as("ada")).expect(200);
    expect(active.body.requests).toEqual([]);
    // No request record at all, failed or otherwise.
    expect(await server.host.stores.requests.listByStatus([...statuses])).toEqual(requestsBefore);
    const snapshot = await request(api).get(`/sessions/${sessionId}/state`).set(as("ada")).expect(200);
    expect(snapshot.body.resources.session.notes.count).toBe(1);
    expect(snapshot.body.resources.user.profile.clientData.noteCount).toBe(1);
  });

  test("data lives in the filesystem store and survives a restart", async () => {
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
    await server.close();
    server = await startReferenceServer({ port: 0, dataDir });
    api = `${server.url}/api/flows`;
    const snapshot = await request(api).get(`/sessions/${sessionId}/state`).set(as("ada")).expect(200);
    expect(snapshot.body.resources.session.notes.count).toBe(1);
  });

  test("serves the page at /", async () => {
    const page = await request(server.url).get("/").expect(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.text).toContain("flowrt notebook");
  });
});
