/** Client-config rules 1–8 of the specification and the projection helpers the engine builds on. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  clientPermissions,
  hasClientConfig,
  hasClientData,
  isListedInManifest,
  projectClientData,
  projectionOf,
} from "./client-projection.js";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";
import { resolveScopeId } from "./identity.js";
import { definitionErrorOf } from "./testing/definition-error.js";

const noteSchema = z.object({
  title: z.string().default(""),
  body: z.string().default(""),
  secret: z.string().optional(),
});
const read = async () => null;

describe("client rules 1–8", () => {
  it("rule 1: without client config a resource is invisible: no client data, not in the manifest", () => {
    const single = defineResource({ scope: "session", stateSchema: noteSchema });
    const collection = defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      stateSchema: noteSchema,
    });
    for (const def of [single, collection]) {
      expect(def.client).toBeUndefined();
      expect(hasClientConfig(def)).toBe(false);
      expect(isListedInManifest(def)).toBe(false);
      expect(hasClientData(def)).toBe(false);
      expect(projectClientData(def, { title: "t", body: "b" })).toBeUndefined();
      expect(clientPermissions(def).content.read).toBe(false);
    }
  });

  it("rule 2: expose, exclude and data are mutually exclusive", () => {
    definitionErrorOf(
      () =>
        defineResource({
          scope: "session",
          stateSchema: noteSchema,
          client: { expose: ["title"], data: (s: { title: string }) => s.title } as never,
        }),
      "client.data",
    );
    definitionErrorOf(
      () =>
        defineExternalCollection({
          pattern: "t/*",
          scope: "org",
          read,
          stateSchema: noteSchema,
          client: { expose: ["title"], exclude: ["secret"] } as never,
        }),
      "client.exclude",
    );
  });

  it("rule 3: identity projection gives a collection item's full state under state.read, and nothing for a single resource", () => {
    const state = { title: "t", body: "b", secret: "s" };
    const readable = defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      stateSchema: noteSchema,
      client: { state: { read: true } },
    });
    expect(projectClientData(readable, state)).toEqual(state);
    expect(hasClientData(readable)).toBe(true);

    const contentOnly = defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      client: { content: { read: true } },
    });
    expect(projectClientData(contentOnly, state)).toBeUndefined();
    expect(hasClientData(contentOnly)).toBe(false);

    const single = defineResource({
      scope: "session",
      stateSchema: noteSchema,
      client: { content: { read: true } },
    });
    expect(projectClientData(single, state)).toBeUndefined();
    expect(hasClientData(single)).toBe(false);
    const projected = defineResource({
      scope: "session",
      stateSchema: noteSchema,
      client: { expose: ["title"] },
    });
    expect(projectClientData(projected, state)).toEqual({ title: "t" });
    expect(hasClientData(projected)).toBe(true);
  });

  it("rule 4: a projected collection is read-only for clients", () => {
    for (const projection of [{ expose: ["title"] }, { exclude: ["secret"] }, { data: () => 1 }]) {
      definitionErrorOf(
        () =>
          defineResourceCollection({
            pattern: "n/*",
            scope: "session",
            stateSchema: noteSchema,
            client: { content: { read: true, update: true }, ...projection } as never,
          }),
        "client.content.update",
      );
    }
    // Read permissions stay available with a projection.
    const ok = defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      stateSchema: noteSchema,
      client: { content: { read: true, prefetch: true }, state: { read: true }, expose: ["title"] },
    });
    expect(clientPermissions(ok).content).toEqual({
      read: true,
      prefetch: true,
      create: false,
      update: false,
      delete: false,
    });
  });

  it("rule 5: live needs client-visible clientData", () => {
    // Single resource: a projection is required.
    definitionErrorOf(() => defineResource({ scope: "session", client: { live: true } }), "client.live");
    expect(
      clientPermissions(
        defineResource({
          scope: "session",
          stateSchema: noteSchema,
          client: { live: true, exclude: ["secret"] },
        }),
      ).live,
    ).toBe(true);
    // Collection: state.read or a projection.
    const message = definitionErrorOf(
      () =>
        defineResourceCollection({
          pattern: "n/*",
          scope: "session",
          client: { live: true, state: { read: false } },
        }),
      "client.live",
    );
    expect(message).toContain(
      "Set client.state.read to true or add client.expose, client.exclude or client.data",
    );
    expect(() =>
      defineResourceCollection({
        pattern: "n/*",
        scope: "session",
        client: { live: true, state: { read: true } },
      }),
    ).not.toThrow();
    expect(() =>
      defineResourceCollection({
        pattern: "n/*",
        scope: "session",
        client: { live: true, data: () => ({ n: 1 }) },
      }),
    ).not.toThrow();
  });

  it("rule 6: under expose a later-added field stays private, under exclude it is published", () => {
    const exposed = defineResource({
      scope: "session",
      stateSchema: noteSchema,
      client: { expose: ["title"] },
    });
    const excluded = defineResource({
      scope: "session",
      stateSchema: noteSchema,
      client: { exclude: ["secret"] },
    });
    // `addedLater` stands for a field a newer schema version introduced after the client config was written.
    const state = { title: "t", body: "b", secret: "s", addedLater: 1 };
    expect(projectClientData(exposed, state)).toEqual({ title: "t" });
    expect(projectClientData(excluded, state)).toEqual({ title: "t", body: "b", addedLater: 1 });
  });

  it("rule 7: a user- or org-scoped collection resolves against the session's bound user or org", () => {
    const binding = { sessionId: "s1", rootSessionId: "root", userId: "u1", orgId: "o1" };
    const orgItems = defineResourceCollection({
      pattern: "n/*",
      scope: "org",
      client: { state: { read: true } },
    });
    const userItems = defineResourceCollection({
      pattern: "n/*",
      scope: "user",
      client: { state: { read: true } },
    });
    const sessionItems = defineResourceCollection({ pattern: "n/*", scope: "session" });
    const lineageItems = defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      sharedToLineage: true,
    });
    expect(resolveScopeId(orgItems, binding)).toBe("o1");
    expect(resolveScopeId(userItems, binding)).toBe("u1");
    expect(resolveScopeId(sessionItems, binding)).toBe("s1");
    expect(resolveScopeId(lineageItems, binding)).toBe("root");
    // A session bound to no org has no org-scoped data to read.
    expect(resolveScopeId(orgItems, { sessionId: "s1", userId: "u1" })).toBeUndefined();
    // Opening state.read makes the scope's data readable by every member of that scope.
    expect(hasClientData(orgItems)).toBe(true);
    expect(clientPermissions(orgItems).state.read).toBe(true);
  });

  it("rule 8: an external collection refuses content.create, update and delete but allows reads", () => {
    definitionErrorOf(
      () =>
        defineExternalCollection({
          pattern: "t/*",
          scope: "org",
          read,
          client: { content: { delete: true } } as never,
        }),
      "client.content.delete",
    );
    const ok = defineExternalCollection({
      pattern: "t/*",
      scope: "org",
      read,
      client: { content: { read: true }, state: { read: true } },
    });
    expect(isListedInManifest(ok)).toBe(true);
    expect(hasClientData(ok)).toBe(true);
  });
});

describe("client config checks and helpers", () => {
  it("expose and exclude names are checked against the schema's fields", () => {
    const message = definitionErrorOf(
      () =>
        defineResource({
          name: "n",
          scope: "session",
          stateSchema: noteSchema,
          client: { expose: ["titel" as "title"] },
        }),
      "client.expose",
    );
    expect(message).toBe(
      'Resource "n": client.expose names "titel", which stateSchema does not declare. Use fields of stateSchema ("title", "body", "secret") or add the field to stateSchema',
    );
    definitionErrorOf(
      () =>
        defineResourceCollection({
          pattern: "n/*",
          scope: "session",
          stateSchema: noteSchema,
          client: { exclude: ["x" as "title"] },
        }),
      "client.exclude",
    );
  });

  it("schemas that keep unknown fields accept any expose name", () => {
    expect(() => defineResource({ scope: "session", client: { expose: ["anything"] } })).not.toThrow();
    expect(() =>
      defineResource({
        scope: "session",
        stateSchema: z.looseObject({ a: z.string() }),
        client: { expose: ["b" as "a"] },
      }),
    ).not.toThrow();
    definitionErrorOf(
      () =>
        defineResource({
          scope: "session",
          stateSchema: z.strictObject({ a: z.string() }),
          client: { expose: ["b" as "a"] },
        }),
      "client.expose",
    );
  });

  it("write permissions and state.read are for collections only", () => {
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { content: { create: true } } as never }),
      "client.content.create",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { state: { read: true } } as never }),
      "client.state",
    );
  });

  it("malformed client blocks are refused", () => {
    definitionErrorOf(() => defineResource({ scope: "session", client: true as never }), "client");
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { contents: {} } as never }),
      "client.contents",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { content: { read: "yes" } } as never }),
      "client.content.read",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { content: { write: true } } as never }),
      "client.content.write",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { expose: "title" } as never }),
      "client.expose",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { data: {} } as never }),
      "client.data",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", client: { live: 1 } as never }),
      "client.live",
    );
  });

  it("a resource is listed in the manifest iff a permission flag or a projection is declared", () => {
    expect(isListedInManifest(defineResource({ scope: "session", client: {} }))).toBe(false);
    expect(
      isListedInManifest(defineResource({ scope: "session", client: { content: { read: false } } })),
    ).toBe(false);
    expect(
      isListedInManifest(defineResource({ scope: "session", client: { content: { prefetch: true } } })),
    ).toBe(true);
    expect(isListedInManifest(defineResource({ scope: "session", client: { data: () => 1 } }))).toBe(true);
    expect(hasClientConfig(defineResource({ scope: "session", client: {} }))).toBe(true);
  });

  it("data computes the projection and expose omits fields absent from the state", () => {
    const computed = defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      stateSchema: noteSchema,
      client: { data: (s) => ({ length: s.body.length }) },
    });
    expect(projectionOf(computed)).toBe("data");
    expect(projectClientData(computed, { title: "", body: "abc" })).toEqual({ length: 3 });
    const exposed = defineResource({
      scope: "session",
      stateSchema: noteSchema,
      client: { expose: ["title", "secret"] },
    });
    expect(projectClientData(exposed, { title: "t", body: "" })).toEqual({ title: "t" });
  });

  it("the stored client config is a frozen copy", () => {
    const client = { content: { read: true }, expose: ["title" as const] };
    const def = defineResource({ scope: "session", stateSchema: noteSchema, client });
    client.content.read = false;
    client.expose.push("body" as never);
    expect(def.client?.content?.read).toBe(true);
    expect(def.client?.expose).toEqual(["title"]);
    expect(Object.isFrozen(def.client)).toBe(true);
    expect(Object.isFrozen(def.client?.content)).toBe(true);
  });
});
