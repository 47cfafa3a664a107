import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API, as, expectProblem } from "./testing/http.js";
import { createSession, type Lab, serveLab } from "./testing/lab-server.js";
import { dumpStores, sessionAddress } from "./testing/store-hooks.js";

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

const post = (ref: string, body: object) => request(s.url).post(`${base}/${ref}`).set(ada).send(body);
const get = (path: string) => request(s.url).get(`${base}/${path}`).set(ada);

describe("routing rule 1: :topic is a multi-segment wildcard, %2F decoded", () => {
  it("a deep item is reached with %2F-encoded and with raw slashes alike", async () => {
    await post("docs", { topic: "docs/a/b/c.md", content: "deep" }).expect(201, {
      topic: "docs/a/b/c.md",
      clientData: { title: "" },
    });
    const encoded = await get(`docs/${encodeURIComponent("docs/a/b/c.md")}`).expect(200);
    expect(encoded.body).toEqual({ topic: "docs/a/b/c.md", clientData: { title: "" } });
    const raw = await get("docs/docs/a/b/c.md").expect(200);
    expect(raw.body).toEqual(encoded.body);
    expect((await get(`docs/${encodeURIComponent("docs/a/b/c.md")}/content`).expect(200)).body).toEqual({
      content: "deep",
    });
    expect((await get("docs/a/b/c.md/content").expect(200)).body).toEqual({ content: "deep" });
  });

  it("a single-segment collection takes the short key or the full storage key", async () => {
    await post("notes", { topic: "n1" }).expect(201, { topic: "notes/n1", clientData: { title: "" } });
    expect((await get("notes/n1").expect(200)).body.topic).toBe("notes/n1");
    expect((await get(`notes/${encodeURIComponent("notes/n1")}`).expect(200)).body.topic).toBe("notes/n1");
  });

  it("a key outside the pattern is 400 invalid-key; a malformed escape is 400, not a crash", async () => {
    expectProblem(await get(`notes/${encodeURIComponent("x/y/z")}`), 400, "invalid-key");
    expectProblem(await get("notes/%E0%A4%A"), 400, "invalid-request");
  });
});

describe("routing rule 2: a topic named `content` is shadowed by /:ref/content", () => {
  it("GET /notes/content is the ref's content route, never the item's state", async () => {
    await post("notes", { topic: "content", content: "body" }).expect(201);
    const shadowed = await get("notes/content");
    expectProblem(shadowed, 404, "resource-not-found");
    expect(shadowed.text).not.toContain('"clientData"');
    // The item itself exists and is reachable by its full storage key.
    expect((await get(`notes/${encodeURIComponent("notes/content")}`).expect(200)).body.topic).toBe(
      "notes/content",
    );
  });
});

describe("routing rule 3: resources without client config are 404", () => {
  it("every resource route answers 404 resource-not-found for them (and for unknown refs)", async () => {
    for (const res of [
      await get("hidden"),
      await get("hidden/h1"),
      await get("hidden/h1/content"),
      await post("hidden", { topic: "h1" }),
      await request(s.url).patch(`${base}/hidden/h1/content`).set(ada).send({ content: "x" }),
      await request(s.url).delete(`${base}/hidden/h1`).set(ada),
      await get("secretDoc/content"),
      await get("nothing/content"),
      await get("constructor"),
    ]) {
      expectProblem(res, 404, "resource-not-found");
      expect(res.text).not.toContain("server only");
    }
    expect(await s.stores.resources.list(sessionAddress(sid))).toEqual({ items: [], total: 0 });
  });
});

describe("routing rule 4: an undeclared operation is 403", () => {
  it("each operation the client config does not grant is 403 operation-not-permitted and writes nothing", async () => {
    // An item written server-side, so each refused route addresses something that exists.
    await s.stores.resources.putState(sessionAddress(sid), "ro/r1", { title: "T" }, { type: "absent" });
    await s.stores.resources.putContent(sessionAddress(sid), "ro/r1", "readable");
    const before = await dumpStores(s.stores);
    for (const res of [
      await get("readOnly"),
      await get("readOnly/r1"),
      await post("readOnly", { topic: "r2" }),
      await request(s.url).patch(`${base}/readOnly/r1/content`).set(ada).send({ content: "x" }),
      await request(s.url).delete(`${base}/readOnly/r1`).set(ada),
      await get("counter/content"),
      await get("strict/s1/content"),
    ]) {
      expectProblem(res, 403, "operation-not-permitted");
    }
    expect(await dumpStores(s.stores)).toEqual(before);
    // What is granted still works.
    expect((await get("readOnly/r1/content").expect(200)).body).toEqual({ content: "readable" });
  });
});

describe("single resource content", () => {
  it("GET /:ref/content returns { content }", async () => {
    expect((await get("readme/content").expect(200)).body).toEqual({ content: "read me" });
  });
});

describe("item reads", () => {
  it("item content is null when the item has no content row; a missing item is 404 instance-not-found", async () => {
    await post("notes", { topic: "bare" }).expect(201);
    expect((await get("notes/bare/content").expect(200)).body).toEqual({ content: null });
    expectProblem(await get("notes/missing"), 404, "instance-not-found");
    expectProblem(await get("notes/missing/content"), 404, "instance-not-found");
  });
});

describe("list: limit default 50, maximum 200, bad limit/offset 400, topicPrefix against the full key", () => {
  const fill = async (n: number) => {
    const address = sessionAddress(sid);
    for (let i = 0; i < n; i++) {
      const key = `notes/${String(i).padStart(3, "0")}`;
      await s.stores.resources.putState(address, key, { title: `t${i}` }, { type: "absent" });
    }
  };

  it("without limit a page holds 50 items, in key order, with offset accounting", async () => {
    await fill(120);
    const res = await get("notes").expect(200);
    expect(res.body.items).toHaveLength(50);
    expect(res.body.items[0]).toEqual({ topic: "notes/000", clientData: { title: "t0" } });
    expect(res.body.pagination).toEqual({
      offset: 0,
      limit: 50,
      total: 120,
      hasMore: true,
      nextOffset: 50,
      nextCursor: expect.any(String),
    });
    const last = await get("notes?offset=100&limit=50").expect(200);
    expect(last.body.items.map((i: { topic: string }) => i.topic)[0]).toBe("notes/100");
    expect(last.body.pagination).toEqual({
      offset: 100,
      limit: 50,
      total: 120,
      hasMore: false,
      nextOffset: 120,
      nextCursor: null,
    });
  });

  it("a limit above 200 is served as 200 (the maximum), never more", async () => {
    await fill(230);
    const max = await get("notes?limit=200").expect(200);
    expect(max.body.items).toHaveLength(200);
    const above = await get("notes?limit=1000").expect(200);
    expect(above.body.items).toHaveLength(200);
    expect(above.body.pagination).toMatchObject({ limit: 200, total: 230, hasMore: true, nextOffset: 200 });
  });

  it.each([
    ["limit=abc", "limit"],
    ["limit=-1", "limit"],
    ["limit=0", "limit"],
    ["limit=1.5", "limit"],
    ["limit=", undefined],
    ["offset=-3", "offset"],
    ["offset=x", "offset"],
    ["offset=99999999999999999999", "offset"],
  ])("bad pagination %s is 400 invalid-pagination naming the field", async (query, field) => {
    const res = await get(`notes?${query}`);
    if (field === undefined) {
      expect(res.status).toBe(200); // an empty value is the default
      return;
    }
    expect(expectProblem(res, 400, "invalid-pagination").field).toBe(field);
  });

  it("topicPrefix matches the full storage key", async () => {
    for (const topic of ["docs/projects/p1/a", "docs/projects/p1/b", "docs/projects/p2/a", "docs/misc"]) {
      await post("docs", { topic }).expect(201);
    }
    const p1 = await get(`docs?topicPrefix=${encodeURIComponent("docs/projects/p1")}`).expect(200);
    expect(p1.body.items.map((i: { topic: string }) => i.topic)).toEqual([
      "docs/projects/p1/a",
      "docs/projects/p1/b",
    ]);
    expect(p1.body.pagination.total).toBe(2);
    const all = await get(`docs?topicPrefix=${encodeURIComponent("docs/")}`).expect(200);
    expect(all.body.pagination.total).toBe(4);
    const shortPrefix = await get(`docs?topicPrefix=${encodeURIComponent("do")}`).expect(200);
    expect(shortPrefix.body.pagination.total).toBe(4);
    // The suffix alone is not a prefix of any full key.
    const suffixOnly = await get(`docs?topicPrefix=${encodeURIComponent("projects/p1")}`).expect(200);
    expect(suffixOnly.body).toEqual({
      items: [],
      pagination: { offset: 0, limit: 50, total: 0, hasMore: false, nextOffset: 0, nextCursor: null },
    });
  });
});
