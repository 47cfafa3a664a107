import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsStores } from "@flowrt/store-fs";
import request from "supertest";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Served, serve } from "../testing/serve.js";
import { API, as, expectProblem } from "./testing/http.js";
import { lab } from "./testing/lab-flows.js";
import { createSession, type Lab, serveLab } from "./testing/lab-server.js";
import { dumpStores, sessionAddress, withResourceHooks } from "./testing/store-hooks.js";

let s: Lab;
let sid: string;
let base: string;
const ada = as("ada");

beforeAll(async () => {
  s = await serveLab();
});
afterAll(() => s.close());
beforeEach(async () => {
  sid = await createSession(s.url, "lab", ada);
  base = `${API}/sessions/${sid}/resources`;
});
afterEach(() => {
  for (const key of Object.keys(s.hooks)) delete s.hooks[key as keyof typeof s.hooks];
});

const post = (ref: string, body: object) => request(s.url).post(`${base}/${ref}`).set(ada).send(body);
const patch = (path: string, body: object) => request(s.url).patch(`${base}/${path}`).set(ada).send(body);
const del = (path: string) => request(s.url).delete(`${base}/${path}`).set(ada);
const stateOf = async (key: string) =>
  (await s.stores.resources.getState(sessionAddress(sid), key))?.state ?? null;
const contentOf = (key: string) => s.stores.resources.getContent(sessionAddress(sid), key);

/** Resolves when `count` callers have arrived; each caller waits for the others. */
function barrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    arrived++;
    if (arrived === count) open();
    return opened;
  };
}

describe("POST create", () => {
  it("201 { topic, clientData }: state is stored, then content", async () => {
    const order: string[] = [];
    s.hooks.beforePutContent = async (_address, key) => {
      order.push(`content while state is ${JSON.stringify(await stateOf(key))}`);
    };
    const res = await post("notes", { topic: "a", content: "hello" }).expect(201);
    expect(res.body).toEqual({ topic: "notes/a", clientData: { title: "" } });
    // Routing rule 5: the state row already existed when the content was written.
    expect(order).toEqual([`content while state is {"title":""}`]);
    expect(await contentOf("notes/a")).toBe("hello");
  });

  it("routing rule 6: state is seeded from stateSchema parsed against {}; else 400 naming the field, nothing written", async () => {
    await post("notes", { topic: "seeded" }).expect(201);
    expect(await stateOf("notes/seeded")).toEqual({ title: "" });
    const before = await dumpStores(s.stores);
    const res = await post("strict", { topic: "s1", content: "x" });
    expect(expectProblem(res, 400, "invalid-seed-state").field).toBe("owner");
    expect(res.body.detail).toContain('"owner"');
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("400 naming the field for a bad body; 400 invalid-json for malformed JSON; nothing written", async () => {
    const before = await dumpStores(s.stores);
    expect(expectProblem(await post("notes", {}), 400, "invalid-request").field).toBe("topic");
    expect(expectProblem(await post("notes", { topic: "" }), 400, "invalid-request").field).toBe("topic");
    expect(expectProblem(await post("notes", { topic: "b", content: 5 }), 400, "invalid-request").field).toBe(
      "content",
    );
    expectProblem(await post("notes", { topic: "x/y" }), 400, "invalid-key");
    const malformed = await request(s.url)
      .post(`${base}/notes`)
      .set(ada)
      .set("content-type", "application/json")
      .send('{"topic": "c",');
    expectProblem(malformed, 400, "invalid-json");
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("routing rule 7: POST on an existing topic is 409 topic-exists; state and content stay as they were", async () => {
    await post("notes", { topic: "a", content: "first" }).expect(201);
    const before = await dumpStores(s.stores);
    expectProblem(await post("notes", { topic: "a", content: "second" }), 409, "topic-exists");
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("routing rule 7: of two simultaneous creates one gets 201, the other 409 and writes no content", async () => {
    // Both requests pass the existence check before either writes: the store settles the race.
    const meet = barrier(2);
    s.hooks.beforeGetState = (_address, key) => (key === "notes/race" ? meet() : undefined);
    const contentWrites: string[] = [];
    s.hooks.beforePutContent = (_address, key, content) => {
      if (key === "notes/race") contentWrites.push(content);
    };
    const [one, two] = await Promise.all([
      post("notes", { topic: "race", content: "from one" }),
      post("notes", { topic: "race", content: "from two" }),
    ]);
    expect([one.status, two.status].sort()).toEqual([201, 409]);
    const [winner, loser] = one.status === 201 ? [one, two] : [two, one];
    expectProblem(loser, 409, "topic-exists");
    const winnerContent = winner === one ? "from one" : "from two";
    expect(contentWrites).toEqual([winnerContent]);
    expect(await contentOf("notes/race")).toBe(winnerContent);
  });

  it("routing rule 8: a failed content write leaves the item without content; a retry is 409; PATCH repairs", async () => {
    s.hooks.beforePutContent = () => {
      throw new Error("disk full");
    };
    const failed = await post("notes", { topic: "half", content: "body" });
    expectProblem(failed, 500, "content-write-failed");
    expect(failed.text).not.toContain("disk full");
    delete s.hooks.beforePutContent;
    expect(await stateOf("notes/half")).toEqual({ title: "" });
    expect((await request(s.url).get(`${base}/notes/half/content`).set(ada).expect(200)).body).toEqual({
      content: null,
    });
    expectProblem(await post("notes", { topic: "half", content: "body" }), 409, "topic-exists");
    await patch("notes/half/content", { content: "body" }).expect(200, { topic: "notes/half" });
    expect(await contentOf("notes/half")).toBe("body");
  });

  it("routing rule 9: with contentTemplate the content is rendered from state, never read from the row", async () => {
    await post("templated", { topic: "t1", content: "sent body" }).expect(201);
    expect(await contentOf("t/t1")).toBe("sent body"); // the write was still attempted
    const read = await request(s.url).get(`${base}/templated/t1/content`).set(ada).expect(200);
    expect(read.body).toEqual({ content: "Title: untitled" });
  });
});

describe("PATCH content", () => {
  it("200 replaces the content; 404 for a missing item; 400 naming the field for a bad body", async () => {
    await post("notes", { topic: "p", content: "old" }).expect(201);
    await patch("notes/p/content", { content: "new" }).expect(200, { topic: "notes/p" });
    expect(await contentOf("notes/p")).toBe("new");
    const before = await dumpStores(s.stores);
    expectProblem(await patch("notes/none/content", { content: "x" }), 404, "instance-not-found");
    expect(expectProblem(await patch("notes/p/content", { content: 1 }), 400, "invalid-request").field).toBe(
      "content",
    );
    expect(await dumpStores(s.stores)).toEqual(before);
  });
});

describe("DELETE", () => {
  it("200 removes state and content; 200 also when the topic does not exist", async () => {
    await post("notes", { topic: "d", content: "x" }).expect(201);
    await del("notes/d").expect(200, { topic: "notes/d", deleted: true });
    expect(await stateOf("notes/d")).toBeNull();
    expect(await contentOf("notes/d")).toBeNull();
    await del("notes/never").expect(200, { topic: "notes/never", deleted: false });
  });

  it("routing rule 10: 409 when the item's state changes between the server's read and the delete; item and content intact", async () => {
    await post("notes", { topic: "busy", content: "keep me" }).expect(201);
    let wrote = false;
    s.hooks.beforeDeleteState = async (address, key) => {
      if (wrote || key !== "notes/busy") return;
      wrote = true; // another writer lands after the server read the version
      await s.stores.resources.putState(address, key, { title: "changed" }, { type: "any" });
    };
    const res = await del("notes/busy");
    expect(expectProblem(res, 409, "delete-conflict").retryable).toBe(true);
    expect(await stateOf("notes/busy")).toEqual({ title: "changed" });
    expect(await contentOf("notes/busy")).toBe("keep me");
    // Retrying is appropriate: with no further writer it succeeds.
    await del("notes/busy").expect(200, { topic: "notes/busy", deleted: true });
  });
});

describe("routing rule 11: a DELETE or PATCH between a create's state write and its content write", () => {
  it("a DELETE in the window leaves the create's body behind; a later create without content shows it", async () => {
    let once = false;
    s.hooks.beforePutContent = async (_address, key) => {
      if (once || key !== "notes/w") return;
      once = true;
      await del("notes/w").expect(200, { topic: "notes/w", deleted: true });
    };
    await post("notes", { topic: "w", content: "orphan body" }).expect(201);
    expect(await stateOf("notes/w")).toBeNull();
    await post("notes", { topic: "w" }).expect(201);
    const read = await request(s.url).get(`${base}/notes/w/content`).set(ada).expect(200);
    expect(read.body).toEqual({ content: "orphan body" });
  });

  it("a PATCH in the window answers 200 and is then overwritten by the finishing create", async () => {
    let once = false;
    s.hooks.beforePutContent = async (_address, key, content) => {
      if (once || key !== "notes/v" || content !== "create body") return;
      once = true;
      await patch("notes/v/content", { content: "patched" }).expect(200);
    };
    await post("notes", { topic: "v", content: "create body" }).expect(201);
    expect(await contentOf("notes/v")).toBe("create body");
  });
});

describe("routing rule 12: the filesystem store settles create races within one store instance only", () => {
  const dirs: string[] = [];
  const servers: Served[] = [];
  afterAll(async () => {
    for (const served of servers) await served.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("two stores on one directory can both answer 201; one body overwrites the other", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flowrt-rule12-"));
    dirs.push(dir);
    const meet = barrier(2);
    const hooks = {
      // Both creates reach their create-only write before either has written.
      beforePutState: (_a: unknown, key: string) => (key === "notes/same" ? meet() : undefined),
    };
    for (let i = 0; i < 2; i++) {
      const stores = withResourceHooks(createFsStores({ dir }), hooks);
      servers.push(await serve([lab], { host: { stores, recoveryIntervalMs: 0 } }));
    }
    const [first, second] = servers as [Served, Served];
    const id = await createSession(first.url, "lab", ada);
    const path = `${API}/sessions/${id}/resources/notes`;
    const [a, b] = await Promise.all([
      request(first.url).post(path).set(ada).send({ topic: "same", content: "from first" }),
      request(second.url).post(path).set(ada).send({ topic: "same", content: "from second" }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const read = await request(first.url).get(`${path}/same/content`).set(ada).expect(200);
    expect(["from first", "from second"]).toContain(read.body.content);
  });
});
