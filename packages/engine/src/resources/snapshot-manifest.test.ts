import {
  defineExternalCollection,
  defineResource,
  defineResourceCollection,
  type FlowStores,
} from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClientResourceApi } from "./client-api.js";
import { buildManifest } from "./manifest.js";
import { createResourceScope } from "./resource-scope.js";
import { buildSnapshot } from "./snapshot.js";
import { makeContext, STORE_FACTORIES } from "./testing/harness.js";

const schema = z.object({ title: z.string().default(""), secret: z.string().default("s") });
const profile = defineResource({
  scope: "user",
  stateSchema: schema,
  content: "hi",
  client: { expose: ["title"], content: { read: true, prefetch: true } },
});
const readme = defineResource({ scope: "session", content: "readme", client: { content: { read: true } } });
const hidden = defineResource({ scope: "session", stateSchema: schema });
const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: schema,
  prefetchWindow: 2,
  client: { state: { read: true }, content: { read: true, create: true } },
});
const projected = defineResourceCollection({
  pattern: "p/*",
  scope: "session",
  stateSchema: schema,
  prefetchWindow: 5,
  client: { exclude: ["secret"] },
});
const counted = defineResourceCollection({
  pattern: "c/*",
  scope: "session",
  stateSchema: schema,
  client: { content: { read: true } },
});
const board = defineResourceCollection({
  pattern: "b/*",
  scope: "org",
  stateSchema: schema,
  client: { state: { read: true } },
});
const catalog = defineExternalCollection({
  pattern: "cat/*",
  scope: "user",
  read: () => null,
  client: { state: { read: true } },
});
const declarations = { profile, readme, hidden, notes, projected, counted, board, catalog };

describe.each(STORE_FACTORIES)("snapshot ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  const flow = {
    session: { client: { expose: ["n"], derived: { twice: (s: { n?: number }) => (s.n ?? 0) * 2 } } },
  };

  async function seed() {
    const t = makeContext(stores);
    const scope = createResourceScope(t.ctx, declarations);
    await scope.load();
    const h = scope.handles as Record<string, any>;
    await h.profile.patchState({ title: "Ada", secret: "x" });
    for (const k of ["c", "a", "b"]) await h.notes.create(k, { title: k.toUpperCase() });
    await h.projected.create("one", { title: "1", secret: "x" });
    await h.counted.create("x");
    await h.hidden.patchState({ title: "nope" });
    await scope.scopes.session.patchState({ n: 2, raw: "private" });
  }

  it("builds exactly the specification's shape: scope projections, singles, collections, external anchors; hidden resources absent", async () => {
    await seed();
    const snapshot = await buildSnapshot(makeContext(stores, { flow }).ctx, declarations);
    expect(snapshot).toEqual({
      clientData: { session: { n: 2, twice: 4 } },
      resources: {
        user: { profile: { clientData: { title: "Ada" }, content: "hi" }, catalog: {} },
        session: {
          readme: {},
          notes: {
            count: 3,
            prefetched: [
              { topic: "notes/a", clientData: { title: "A", secret: "s" } },
              { topic: "notes/b", clientData: { title: "B", secret: "s" } },
            ],
          },
          projected: { count: 1, prefetched: [{ topic: "p/one" }] },
          counted: { count: 1 },
        },
        org: { board: { count: 0 } },
      },
    });
  });

  it("a `data` projection that throws serves its resource without clientData (logged), in the snapshot, the list, the item and a live write", async () => {
    const boom = (): never => {
      throw new Error("projection bug");
    };
    const flaky = defineResourceCollection({
      pattern: "f/*",
      scope: "session",
      stateSchema: schema,
      prefetchWindow: 2,
      client: { state: { read: true }, data: boom, live: true },
    });
    const card = defineResource({
      scope: "session",
      stateSchema: schema,
      client: { data: boom, live: true },
    });
    const writer = makeContext(stores);
    const scope = createResourceScope(writer.ctx, { flaky, card });
    await scope.load();
    const h = scope.handles as Record<string, any>;
    // The writes commit and announce, without clientData; the run is not failed by the projection.
    await h.flaky.create("a", { title: "A" });
    await h.card.patchState({ title: "C" });
    expect(writer.events.map((e) => [e.type, e.data.clientData])).toEqual([
      ["resource_change", undefined],
      ["resource_change", undefined],
    ]);

    const reader = makeContext(stores, { noRequest: true });
    const snapshot = await buildSnapshot(reader.ctx, { flaky, card });
    expect(snapshot.resources.session).toEqual({
      flaky: { count: 1, prefetched: [{ topic: "f/a" }] },
      card: {},
    });
    const api = createClientResourceApi(reader.ctx, { flaky });
    expect(await api.listItems("flaky")).toMatchObject({ items: [{ topic: "f/a" }] });
    expect((await api.listItems("flaky")).items[0]).not.toHaveProperty("clientData");
    expect(await api.readItem("flaky", "a")).toEqual({ topic: "f/a", clientData: null });
    expect(reader.logs.filter((l) => l.level === "warn").map((l) => l.message)).toContain(
      'resource "flaky" client.data threw; served without clientData',
    );
    expect(reader.logs.map((l) => l.message)).toContain(
      'resource "card" client.data threw; served without clientData',
    );
  });

  it("a client-visible resource rendered through a contentTemplateRef to a hidden resource serves the live template in the snapshot, content reads and collection items", async () => {
    // The template is private (no client config) and named apart from its accessor: clients see only what it
    // renders, and the rendering reads its current content, not its initial one.
    const template = defineResource({
      name: "tplStored",
      scope: "session",
      content: "<system>V1 {{ title }}</system>",
    });
    const card = defineResource({
      scope: "session",
      stateSchema: schema,
      contentTemplateRef: template,
      client: { content: { read: true, prefetch: true } },
    });
    const byName = defineResource({
      scope: "session",
      stateSchema: schema,
      contentTemplateRef: "template",
      client: { content: { read: true } },
    });
    const docs = defineResourceCollection({
      pattern: "d/*",
      scope: "session",
      stateSchema: schema,
      contentTemplateRef: template,
      client: { content: { read: true } },
    });
    const all = { template, card, byName, docs };
    const writer = makeContext(stores);
    const scope = createResourceScope(writer.ctx, all);
    await scope.load();
    const h = scope.handles as Record<string, any>;
    await h.template.writeContent("<system>V2 {{ title }}</system>");
    await h.card.patchState({ title: "Ada" });
    await h.docs.create("x", { title: "Bo" });

    const reader = makeContext(stores, { noRequest: true });
    const snapshot = await buildSnapshot(reader.ctx, all);
    expect(snapshot.resources.session).toEqual({
      card: { content: "<system>V2 Ada</system>" },
      byName: {},
      docs: { count: 1 },
    });
    const api = createClientResourceApi(reader.ctx, all);
    expect(await api.readContent("card")).toEqual({ content: "<system>V2 Ada</system>" });
    expect(await api.readContent("byName")).toEqual({ content: "<system>V2 </system>" });
    expect(await api.readItemContent("docs", "x")).toEqual({ content: "<system>V2 Bo</system>" });
    await expect(api.readContent("template")).rejects.toMatchObject({ code: "resource-not-found" });
  });

  it("a field the schema added (with a default) since a record was written reads as its default in a handle's state; clients see the record as stored until its next write", async () => {
    const v1 = defineResourceCollection({
      pattern: "ev/*",
      scope: "session",
      stateSchema: z.object({ title: z.string().default("") }),
      prefetchWindow: 1,
      client: { state: { read: true } },
    });
    const v2 = defineResourceCollection({
      pattern: "ev/*",
      scope: "session",
      stateSchema: z.object({ title: z.string().default(""), added: z.string().default("NEW") }),
      prefetchWindow: 1,
      client: { state: { read: true } },
    });
    const before = createResourceScope(makeContext(stores).ctx, { ev: v1 });
    await before.load();
    await (before.handles as Record<string, any>).ev.create("a", { title: "t" });

    const reader = makeContext(stores, { noRequest: true });
    const address = { scope: "session" as const, scopeId: reader.ctx.session.id, bucket: "shared" };
    const after = createResourceScope(makeContext(stores).ctx, { ev: v2 });
    await after.load();
    const item = await (after.handles as Record<string, any>).ev.get("a");
    expect(item.state).toEqual({ title: "t", added: "NEW" });
    // Reading wrote nothing; clients see the stored record.
    expect((await stores.resources.getState(address, "ev/a"))?.state).toEqual({ title: "t" });
    const api = createClientResourceApi(reader.ctx, { ev: v2 });
    expect(JSON.parse(await api.listItemsJson("ev")).items).toEqual([
      { topic: "ev/a", clientData: { title: "t" } },
    ]);
    // The next write stores the default with it, and clients see it from then on.
    await item.patchState({ title: "t2" });
    expect((await stores.resources.getState(address, "ev/a"))?.state).toEqual({ title: "t2", added: "NEW" });
    expect(JSON.parse(await api.listItemsJson("ev")).items).toEqual([
      { topic: "ev/a", clientData: { title: "t2", added: "NEW" } },
    ]);
    expect((await buildSnapshot(reader.ctx, { ev: v2 })).resources.session).toEqual({
      ev: { count: 1, prefetched: [{ topic: "ev/a", clientData: { title: "t2", added: "NEW" } }] },
    });
  });

  it("a client config that grants nothing (client: {}, every flag false) is absent from the snapshot, as from the manifest", async () => {
    const empty = defineResource({ scope: "session", content: "x", client: {} });
    const closed = defineResourceCollection({
      pattern: "closed/*",
      scope: "session",
      stateSchema: schema,
      client: { content: { read: false }, state: { read: false } },
    });
    const writer = createResourceScope(makeContext(stores).ctx, { closed });
    await writer.load();
    await (writer.handles as Record<string, any>).closed.create("a");
    const reader = makeContext(stores, { noRequest: true });
    expect(await buildSnapshot(reader.ctx, { empty, closed, readme })).toEqual({
      clientData: {},
      resources: { session: { readme: {} } },
    });
    expect(buildManifest("k", { empty, closed, readme }).resources.map((entry) => entry.ref)).toEqual([
      "readme",
    ]);
  });

  it("org-scope resources are left out on a session without an org", async () => {
    const snapshot = await buildSnapshot(
      makeContext(stores, { session: { orgId: undefined } }).ctx,
      declarations,
    );
    expect(snapshot.resources.org).toBeUndefined();
  });
});

describe("manifest", () => {
  it("lists a resource iff its client config opts into a permission flag or a projection, with the specification's fields", () => {
    const silent = defineResource({ scope: "session", client: { content: { read: false } } });
    expect(buildManifest("notebook", { ...declarations, silent })).toEqual({
      flowKind: "notebook",
      resources: [
        {
          ref: "profile",
          kind: "single",
          scope: "user",
          hasClientData: true,
          client: { content: { read: true, prefetch: true } },
        },
        {
          ref: "readme",
          kind: "single",
          scope: "session",
          hasClientData: false,
          client: { content: { read: true } },
        },
        {
          ref: "notes",
          kind: "collection",
          scope: "session",
          pattern: "notes/*",
          prefetchWindow: 2,
          hasClientData: true,
          client: { content: { read: true, create: true }, state: { read: true } },
        },
        {
          ref: "projected",
          kind: "collection",
          scope: "session",
          pattern: "p/*",
          prefetchWindow: 5,
          hasClientData: true,
          client: { content: {}, state: {} },
        },
        {
          ref: "counted",
          kind: "collection",
          scope: "session",
          pattern: "c/*",
          prefetchWindow: 0,
          hasClientData: false,
          client: { content: { read: true }, state: {} },
        },
        {
          ref: "board",
          kind: "collection",
          scope: "org",
          pattern: "b/*",
          prefetchWindow: 0,
          hasClientData: true,
          client: { content: {}, state: { read: true } },
        },
        {
          ref: "catalog",
          kind: "collection",
          scope: "user",
          pattern: "cat/*",
          prefetchWindow: 0,
          hasClientData: true,
          client: { content: {}, state: { read: true } },
        },
      ],
    });
  });
});
