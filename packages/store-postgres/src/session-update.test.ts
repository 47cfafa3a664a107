/**
 * `sessions.update` with a `SessionPatch`: one statement, the metadata patch merged in SQL one level deep, so
 * concurrent patches of different keys from two pools all land.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";
import { sessionRecord } from "./testing/records.js";

afterAll(() => closeSharedPglite());

describe.each(backends)("session update (%s)", (on) => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStoresOn(on);
  });
  afterEach(() => db.destroy());

  it("sets and removes the title, leaving the rest alone", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ title: "Old", metadata: { a: 1 }, orgId: "o1", tenantId: "t1" });
    await s.create(session);
    expect(await s.update(session.id, { title: "New" })).toEqual({ ...session, title: "New" });
    const { title: _removed, ...untitled } = session;
    expect(await s.update(session.id, { title: null })).toEqual(untitled);
    expect(await s.get(session.id)).toEqual(untitled);
    expect(await s.update(session.id, {})).toEqual(untitled);
  });

  it("merges a metadata patch one level deep: keys keep their place, new ones follow, null removes", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ metadata: { z: 1, nested: { x: 1, y: 2 }, keep: "k", gone: true } });
    await s.create(session);
    const updated = await s.update(session.id, {
      metadataPatch: { nested: { y: 3 }, gone: null, added: [1, { deep: null }], z: "one", absent: null },
    });
    expect(updated?.metadata).toEqual({ z: "one", nested: { y: 3 }, keep: "k", added: [1, { deep: null }] });
    // The stored order: the object's own keys where they stood, then the patch's new ones in its order.
    expect(Object.keys(updated?.metadata ?? {})).toEqual(["z", "nested", "keep", "added"]);
    expect(await s.get(session.id)).toEqual(updated);
    // Removing every key leaves an empty object, not null.
    expect(
      (await s.update(session.id, { metadataPatch: { z: null, nested: null, keep: null, added: null } }))
        ?.metadata,
    ).toEqual({});
  });

  it("with both, replaces the metadata and merges the patch into the replacement", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ metadata: { old: 1 } });
    await s.create(session);
    const updated = await s.update(session.id, {
      title: "T",
      metadata: { a: 1, b: 2 },
      metadataPatch: { b: null, c: 3 },
    });
    expect(updated).toEqual({ ...session, title: "T", metadata: { a: 1, c: 3 } });
  });

  it("keeps values exactly as written (numbers, strings with quotes and unicode)", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ metadata: { big: 1234567890123456, q: 'a"b\\c' } });
    await s.create(session);
    const patch = { pi: Math.PI, e: 1e-7, text: "é \u2028 😀 \ud83d\ude00", 'key with "quote"': 0 };
    const updated = await s.update(session.id, { metadataPatch: patch });
    expect(updated?.metadata).toEqual({ ...session.metadata, ...patch });
  });

  it("answers null for a missing session and creates nothing", async () => {
    const s = db.stores.sessions;
    expect(await s.update("missing", { title: "x", metadataPatch: { a: 1 } })).toBeNull();
    expect(await s.get("missing")).toBeNull();
  });

  it("never changes owner fields, whatever the patch holds", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ orgId: "o1", tenantId: "t1", parentSessionId: "p", rootSessionId: "p" });
    await s.create(session);
    const hostile = { userId: "other", orgId: "o2", flowId: "f2", createdAt: "x", title: "T" };
    const updated = await s.update(session.id, hostile as never);
    expect(updated).toEqual({ ...session, title: "T" });
  });

  it("refuses a patch that is not a JSON object, changing nothing", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ metadata: { a: 1 } });
    await s.create(session);
    for (const metadataPatch of [[1], null, "x"]) {
      await expect(s.update(session.id, { title: "T", metadataPatch } as never)).rejects.toMatchObject({
        code: "invalid-request",
      });
    }
    expect(await s.get(session.id)).toEqual(session);
  });

  it("refuses to merge into metadata PostgreSQL's JSON functions cannot read, and changes nothing", async () => {
    const s = db.stores.sessions;
    const session = sessionRecord({ metadata: { nul: "a\u0000b", lone: "\ud800" } });
    await s.create(session);
    await expect(s.update(session.id, { title: "T", metadataPatch: { a: 1 } })).rejects.toMatchObject({
      code: "invalid-request",
      message: expect.stringMatching(/replace the whole object/),
    });
    await expect(s.update(session.id, { metadataPatch: { x: "\ud800" } })).rejects.toMatchObject({
      code: "invalid-request",
    });
    expect(await s.get(session.id)).toEqual(session);
    // A whole replacement still works, and so does a merge once the metadata is readable.
    expect((await s.update(session.id, { metadata: { ok: true } }))?.metadata).toEqual({ ok: true });
    expect((await s.update(session.id, { metadataPatch: { more: 1 } }))?.metadata).toEqual({
      ok: true,
      more: 1,
    });
  });

  it("two stores patching different keys of one session at once: every key lands", async () => {
    const peer = await createTestStoresOn(on, { schema: db.schema });
    try {
      const session = sessionRecord({ metadata: { base: 0 } });
      await db.stores.sessions.create(session);
      const writes = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? db : peer).stores.sessions.update(session.id, {
          metadataPatch: { [`k${i}`]: i, ...(i === 7 ? { base: null } : {}) },
        }),
      );
      await Promise.all(writes);
      const expected = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
      expect((await db.stores.sessions.get(session.id))?.metadata).toEqual(expected);
    } finally {
      await peer.destroy();
    }
  });
});
