/**
 * Definition-time errors 1–9 of the specification, plus the option checks the issue adds. Each refusal is
 * thrown by the define call itself and names the resource, the option and the fix.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";
import { assertFlowLevelResource } from "./flow-level.js";
import { definitionErrorOf } from "./testing/definition-error.js";

const read = async () => null;

describe("definition-time errors 1–9", () => {
  it("rule 1: a missing scope is refused", () => {
    const message = definitionErrorOf(() => defineResource({ name: "brief" } as never), "scope", "brief");
    expect(message).toBe('Resource "brief": scope is missing. Set scope to "session", "user" or "org"');
    definitionErrorOf(() => defineResourceCollection({ pattern: "notes/*" } as never), "scope");
    definitionErrorOf(() => defineExternalCollection({ pattern: "t/*", read } as never), "scope");
  });

  it("rule 1: a scope other than session, user or org is refused", () => {
    const message = definitionErrorOf(
      () => defineResourceCollection({ pattern: "notes/*", scope: "team" as never }),
      "scope",
    );
    expect(message).toBe(
      'Resource "notes/*": scope "team" is not a scope. Set scope to "session", "user" or "org"',
    );
  });

  it("rule 2: more than one of expose, exclude and data is refused", () => {
    const stateSchema = z.object({ a: z.string(), b: z.string() });
    const message = definitionErrorOf(
      () =>
        defineResource({
          name: "r",
          scope: "session",
          stateSchema,
          client: { expose: ["a"], exclude: ["b"] } as never,
        }),
      "client.exclude",
    );
    expect(message).toContain("client sets client.expose and client.exclude; they are mutually exclusive");
    expect(message).toContain("Keep one of client.expose, client.exclude and client.data");
    definitionErrorOf(
      () =>
        defineResourceCollection({
          pattern: "n/*",
          scope: "user",
          stateSchema,
          client: { exclude: ["a"], data: () => 1 } as never,
        }),
      "client.data",
    );
  });

  it("rule 3: live without a client-visible projection is refused", () => {
    const message = definitionErrorOf(
      () => defineResource({ name: "r", scope: "session", client: { content: { read: true }, live: true } }),
      "client.live",
    );
    expect(message).toBe(
      'Resource "r": client.live is set but the resource publishes no clientData. Add client.expose, client.exclude or client.data, or remove client.live',
    );
    definitionErrorOf(
      () => defineResourceCollection({ pattern: "n/*", scope: "session", client: { live: true } }),
      "client.live",
    );
  });

  it("rule 4: eviction lru or oldest without maxInstances is refused", () => {
    const message = definitionErrorOf(
      () => defineResourceCollection({ pattern: "notes/*", scope: "session", eviction: "lru" }),
      "eviction",
      "notes/*",
    );
    expect(message).toBe(
      'Resource "notes/*": eviction "lru" needs maxInstances. Set maxInstances to an integer ≥ 1, or use eviction "none"',
    );
    definitionErrorOf(
      () => defineResourceCollection({ pattern: "n/*", scope: "session", eviction: "oldest" }),
      "eviction",
    );
    expect(
      defineResourceCollection({ pattern: "n/*", scope: "session", eviction: "oldest", maxInstances: 3 })
        .eviction,
    ).toBe("oldest");
  });

  it("rule 5: prefetchMode lazy with an eviction other than none is refused", () => {
    const message = definitionErrorOf(
      () =>
        defineResourceCollection({
          pattern: "n/*",
          scope: "session",
          prefetchMode: "lazy",
          eviction: "lru",
          maxInstances: 5,
        }),
      "prefetchMode",
    );
    expect(message).toContain('prefetchMode "lazy" cannot be combined with eviction "lru"');
    expect(
      defineResourceCollection({ pattern: "n/*", scope: "session", prefetchMode: "lazy", maxInstances: 5 })
        .prefetchMode,
    ).toBe("lazy");
  });

  it("rule 6: a lazy single resource declared at flow level is refused", () => {
    const lazy = defineResource({ scope: "session", prefetchMode: "lazy" });
    const message = definitionErrorOf(() => assertFlowLevelResource("brief", lazy), "prefetchMode");
    expect(message).toMatch(
      /^Resource "brief": prefetchMode "lazy" is set on a single resource declared at flow level/,
    );
    expect(message).toContain("Declare the resource on the block that needs it");
    // Eager single resources and lazy collections are fine at flow level.
    expect(() => assertFlowLevelResource("eager", defineResource({ scope: "session" }))).not.toThrow();
    expect(() =>
      assertFlowLevelResource(
        "c",
        defineResourceCollection({ pattern: "n/*", scope: "session", prefetchMode: "lazy" }),
      ),
    ).not.toThrow();
  });

  it("rule 7: flowIsolation on session scope is refused", () => {
    const message = definitionErrorOf(
      () => defineResource({ name: "r", scope: "session", flowIsolation: true }),
      "flowIsolation",
    );
    expect(message).toContain('Remove flowIsolation, or use scope "user" or "org"');
    definitionErrorOf(
      () => defineResourceCollection({ pattern: "n/*", scope: "session", flowIsolation: true }),
      "flowIsolation",
    );
    expect(defineResource({ scope: "org", flowIsolation: true }).flowIsolation).toBe(true);
  });

  it("rule 7: sharedToLineage on user or org scope is refused", () => {
    definitionErrorOf(() => defineResource({ scope: "user", sharedToLineage: true }), "sharedToLineage");
    const message = definitionErrorOf(
      () => defineResourceCollection({ pattern: "n/*", scope: "org", sharedToLineage: true }),
      "sharedToLineage",
    );
    expect(message).toContain("sharedToLineage is set on an org-scoped resource");
    expect(
      defineResourceCollection({ pattern: "n/*", scope: "session", sharedToLineage: true }).sharedToLineage,
    ).toBe(true);
  });

  it("rule 8: content.create, update or delete on a projected collection is refused", () => {
    const stateSchema = z.object({ title: z.string(), secret: z.string() });
    for (const flag of ["create", "update", "delete"] as const) {
      const message = definitionErrorOf(
        () =>
          defineResourceCollection({
            pattern: "n/*",
            scope: "session",
            stateSchema,
            client: { content: { [flag]: true }, expose: ["title"] } as never,
          }),
        `client.content.${flag}`,
      );
      expect(message).toContain(`client.content.${flag} is set on a projected collection (client.expose)`);
    }
  });

  it("rule 8: content.create, update or delete on an external collection is refused", () => {
    for (const flag of ["create", "update", "delete"] as const) {
      const message = definitionErrorOf(
        () =>
          defineExternalCollection({
            pattern: "t/*",
            scope: "org",
            read,
            client: { content: { [flag]: true } } as never,
          }),
        `client.content.${flag}`,
      );
      expect(message).toContain("external collections are read-only");
    }
  });

  it("rule 9: a [name] pattern on an external collection is refused", () => {
    const message = definitionErrorOf(
      () => defineExternalCollection({ pattern: "[topic]/notes", scope: "session", read }),
      "pattern",
    );
    expect(message).toBe(
      'Resource "[topic]/notes": pattern "[topic]/notes" uses [name] segments; external collections take wildcard patterns only. Use a wildcard pattern such as "tickets/*" or "tickets/**"',
    );
    expect(defineExternalCollection({ pattern: "t/**", scope: "session", read }).compiledPattern.kind).toBe(
      "deep",
    );
  });
});

describe("further definition-time checks", () => {
  it.each([0, -1, 1.5, "3", Number.POSITIVE_INFINITY])(
    "maxInstances %j is refused (an integer ≥ 1 is required)",
    (maxInstances) => {
      const message = definitionErrorOf(
        () =>
          defineResourceCollection({
            pattern: "n/*",
            scope: "session",
            maxInstances: maxInstances as number,
          }),
        "maxInstances",
      );
      expect(message).toContain("maxInstances must be an integer ≥ 1");
    },
  );

  it.each([-1, 0.5, "2"])(
    "prefetchWindow %j is refused (a non-negative integer is required)",
    (prefetchWindow) => {
      definitionErrorOf(
        () =>
          defineResourceCollection({
            pattern: "n/*",
            scope: "session",
            prefetchWindow: prefetchWindow as number,
          }),
        "prefetchWindow",
      );
    },
  );

  it("content and contentFile together are refused", () => {
    const message = definitionErrorOf(
      () => defineResource({ name: "r", scope: "session", content: "hi", contentFile: "intro.md" }),
      "contentFile",
    );
    expect(message).toContain("content and contentFile are both set");
  });

  it("contentFile needs a string or { path, importerUrl } with a file: URL", () => {
    definitionErrorOf(() => defineResource({ scope: "session", contentFile: "" }), "contentFile");
    definitionErrorOf(() => defineResource({ scope: "session", contentFile: 3 as never }), "contentFile");
    definitionErrorOf(
      () => defineResource({ scope: "session", contentFile: { path: "", importerUrl: import.meta.url } }),
      "contentFile.path",
    );
    definitionErrorOf(
      () =>
        defineResource({
          scope: "session",
          contentFile: { path: "a.md", importerUrl: "https://example.com/x.js" },
        }),
      "contentFile.importerUrl",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", contentFile: { path: "a.md", importerUrl: "not a url" } }),
      "contentFile.importerUrl",
    );
  });

  it("a default that violates stateSchema is refused, naming the field", () => {
    const stateSchema = z.object({ count: z.number(), nested: z.object({ ok: z.boolean() }).optional() });
    const message = definitionErrorOf(
      () => defineResource({ name: "r", scope: "session", stateSchema, default: { count: "1" as never } }),
      "default.count",
    );
    expect(message).toMatch(/^Resource "r": default does not satisfy stateSchema at field "count": /);
    expect(message).toContain("Fix default.count so that it satisfies stateSchema");
    definitionErrorOf(
      () =>
        defineResource({
          scope: "session",
          stateSchema,
          default: { count: 1, nested: { ok: "y" as never } },
        }),
      "default.nested.ok",
    );
    definitionErrorOf(() => defineResource({ scope: "session", default: [] as never }), "default");
  });

  it("a default that parses to non-JSON state is refused", () => {
    const stateSchema = z.object({ at: z.date() });
    definitionErrorOf(
      () => defineResource({ scope: "session", stateSchema, default: { at: new Date() } }),
      "default",
    );
  });

  it("a stateSchema that is not a zod object schema is refused", () => {
    const message = definitionErrorOf(
      () => defineResource({ scope: "session", stateSchema: z.string() as never }),
      "stateSchema",
    );
    expect(message).toContain("stateSchema must be a zod object schema (got a zod string schema)");
    expect(
      definitionErrorOf(
        () => defineResource({ scope: "session", stateSchema: { a: 1 } as never }),
        "stateSchema",
      ),
    ).toContain("(got an object)");
  });

  it("options of another define function are refused with a pointer to it", () => {
    expect(
      definitionErrorOf(() => defineResource({ scope: "session", pattern: "x/*" } as never), "pattern"),
    ).toContain("Use defineResourceCollection");
    expect(
      definitionErrorOf(
        () => defineResourceCollection({ pattern: "n/*", scope: "session", read } as never),
        "read",
      ),
    ).toContain("Use defineExternalCollection");
    expect(
      definitionErrorOf(
        () => defineExternalCollection({ pattern: "t/*", scope: "user", read, maxInstances: 3 } as never),
        "maxInstances",
      ),
    ).toContain("external collections are read-only");
    expect(
      definitionErrorOf(() => defineResource({ scope: "session", scop: "x" } as never), "scop"),
    ).toContain("scop is not an option of defineResource");
  });

  it("wrongly typed flags, enums, functions and names are refused", () => {
    definitionErrorOf(() => defineResource({ scope: "session", writable: "no" as never }), "writable");
    definitionErrorOf(
      () => defineResource({ scope: "session", prefetchMode: "soon" as never }),
      "prefetchMode",
    );
    definitionErrorOf(
      () => defineResourceCollection({ pattern: "n/*", scope: "session", eviction: "fifo" as never }),
      "eviction",
    );
    definitionErrorOf(() => defineResource({ scope: "session", render: "x" as never }), "render");
    definitionErrorOf(
      () => defineResourceCollection({ pattern: "n/*", scope: "session", onInstanceCreated: 1 as never }),
      "onInstanceCreated",
    );
    definitionErrorOf(() => defineResource({ scope: "session", name: "" }), "name");
    definitionErrorOf(() => defineResource({ scope: "session", ref: "" }), "ref");
    definitionErrorOf(() => defineResource(null as never), "options");
  });

  it("an external collection without read, or with a non-function search, is refused", () => {
    definitionErrorOf(() => defineExternalCollection({ pattern: "t/*", scope: "user" } as never), "read");
    definitionErrorOf(
      () => defineExternalCollection({ pattern: "t/*", scope: "user", read, search: {} as never }),
      "search",
    );
  });

  it("render, contentTemplate and contentTemplateRef are mutually exclusive", () => {
    const message = definitionErrorOf(
      () =>
        defineResource({
          scope: "session",
          render: (c) => c,
          contentTemplate: "---\n---\n<system>x</system>",
        }),
      "contentTemplate",
    );
    expect(message).toContain("render and contentTemplate are both set");
    definitionErrorOf(
      () =>
        defineResourceCollection({
          pattern: "n/*",
          scope: "session",
          contentTemplate: "t",
          contentTemplateRef: "tpl",
        }),
      "contentTemplateRef",
    );
    definitionErrorOf(
      () => defineResource({ scope: "session", contentTemplateRef: 5 as never }),
      "contentTemplateRef",
    );
    const collection = defineResourceCollection({ pattern: "n/*", scope: "session" });
    definitionErrorOf(
      () => defineResource({ scope: "session", contentTemplateRef: collection as never }),
      "contentTemplateRef",
    );
  });
});
