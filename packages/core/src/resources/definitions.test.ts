/** What the define functions return: normalized, frozen, branded definitions the engine reads directly. */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFINITION_KIND, definitionKindOf } from "../brand.js";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";
import {
  isCollectionDefinition,
  isExternalCollectionDefinition,
  isResourceDefinition,
  isSingleResourceDefinition,
} from "./guards.js";
import { parseResourceUri, resourceIdentity, singleResourcePath } from "./identity.js";

const read = async () => null;

describe("defineResource", () => {
  it("fills every documented default", () => {
    const def = defineResource({ scope: "user" });
    expect(def).toMatchObject({
      [DEFINITION_KIND]: "resource",
      type: "single",
      name: undefined,
      scope: "user",
      content: undefined,
      contentFilePath: undefined,
      render: undefined,
      contentTemplate: undefined,
      contentTemplateRef: undefined,
      writable: true,
      llmReadable: false,
      llmWritable: false,
      flowIsolation: false,
      sharedToLineage: false,
      ref: undefined,
      default: undefined,
      prefetchMode: "eager",
      client: undefined,
    });
    expect(Object.isFrozen(def)).toBe(true);
    expect(definitionKindOf(def)).toBe("resource");
  });

  it("without stateSchema the state is any JSON object", () => {
    const { stateSchema } = defineResource({ scope: "session" });
    expect(stateSchema.parse({ a: 1, b: { c: [true, null] } })).toEqual({ a: 1, b: { c: [true, null] } });
    expect(stateSchema.safeParse({ when: new Date() }).success).toBe(false);
    expect(stateSchema.safeParse([1]).success).toBe(false);
  });

  it("keeps the given options", () => {
    const template = defineResource({ scope: "org", content: "Hello {{name}}" });
    const render = (content: string) => content.toUpperCase();
    const def = defineResource({
      name: "brief",
      scope: "session",
      content: "hi",
      render,
      writable: false,
      llmReadable: true,
      llmWritable: true,
      sharedToLineage: true,
      ref: "brief",
      prefetchMode: "lazy",
    });
    expect(def).toMatchObject({
      name: "brief",
      content: "hi",
      render,
      writable: false,
      llmReadable: true,
      llmWritable: true,
    });
    expect(def).toMatchObject({ sharedToLineage: true, ref: "brief", prefetchMode: "lazy" });
    expect(defineResource({ scope: "session", contentTemplateRef: template }).contentTemplateRef).toBe(
      template,
    );
    expect(defineResource({ scope: "session", contentTemplateRef: "template" }).contentTemplateRef).toBe(
      "template",
    );
  });

  it("contentFile as a string resolves from the working directory", () => {
    expect(defineResource({ scope: "session", contentFile: "docs/intro.md" }).contentFilePath).toBe(
      resolve(process.cwd(), "docs/intro.md"),
    );
  });

  it("contentFile as { path, importerUrl } resolves relative to the declaring module", () => {
    const here = fileURLToPath(new URL(".", import.meta.url));
    const def = defineResource({
      scope: "session",
      contentFile: { path: "./fixtures/intro.md", importerUrl: import.meta.url },
    });
    expect(def.contentFilePath).toBe(resolve(here, "fixtures/intro.md"));
    const withUrl = defineResource({
      scope: "session",
      contentFile: { path: "../x.md", importerUrl: new URL(import.meta.url) },
    });
    expect(withUrl.contentFilePath).toBe(resolve(here, "../x.md"));
  });

  it("default is parsed through stateSchema (defaults applied) and deeply frozen", () => {
    const stateSchema = z.object({ count: z.number().default(0), tags: z.array(z.string()).default([]) });
    const def = defineResource({ scope: "session", stateSchema, default: { tags: ["a"] } });
    expect(def.default).toEqual({ count: 0, tags: ["a"] });
    expect(Object.isFrozen(def.default)).toBe(true);
    expect(Object.isFrozen(def.default?.tags)).toBe(true);
  });
});

describe("defineResourceCollection", () => {
  it("fills every documented default and compiles the pattern", () => {
    const def = defineResourceCollection({ pattern: "files/**", scope: "session" });
    expect(def).toMatchObject({
      type: "collection",
      pattern: "files/**",
      llmReadable: false,
      llmWritable: false,
      maxInstances: undefined,
      eviction: "none",
      prefetchMode: "eager",
      prefetchWindow: 0,
      onInstanceCreated: undefined,
      onInstanceUpdated: undefined,
      onInstanceDeleted: undefined,
      sharedToLineage: false,
      flowIsolation: false,
      ref: undefined,
      render: undefined,
      contentTemplate: undefined,
      contentTemplateRef: undefined,
      client: undefined,
    });
    expect(def.compiledPattern.toPath("readme.md")).toBe("files/readme.md");
    expect(Object.isFrozen(def)).toBe(true);
  });

  it("keeps hooks, caps and prefetch settings", () => {
    const created = () => {};
    const def = defineResourceCollection({
      name: "notes",
      pattern: "[topic]/notes",
      scope: "user",
      maxInstances: 10,
      eviction: "oldest",
      prefetchWindow: 5,
      onInstanceCreated: created,
      flowIsolation: true,
      contentTemplate: "---\ntitle: x\n---\n<system>{{title}}</system>",
    });
    expect(def).toMatchObject({
      name: "notes",
      maxInstances: 10,
      eviction: "oldest",
      prefetchWindow: 5,
      flowIsolation: true,
    });
    expect(def.onInstanceCreated).toBe(created);
    expect(def.compiledPattern.toPath({ topic: "t1" })).toBe("t1/notes");
  });
});

describe("defineExternalCollection", () => {
  it("keeps read and search and compiles a wildcard pattern", () => {
    const search = async () => ({ hits: [] });
    const def = defineExternalCollection({
      name: "tickets",
      pattern: "tickets/*",
      scope: "org",
      read,
      search,
      llmReadable: true,
    });
    expect(def).toMatchObject({
      type: "external",
      pattern: "tickets/*",
      read,
      search,
      llmReadable: true,
      client: undefined,
    });
    expect(def.compiledPattern.kind).toBe("wildcard");
    expect(Object.isFrozen(def)).toBe(true);
  });
});

describe("type guards", () => {
  it("tell the three kinds apart and reject look-alikes", () => {
    const single = defineResource({ scope: "session" });
    const collection = defineResourceCollection({ pattern: "n/*", scope: "session" });
    const external = defineExternalCollection({ pattern: "t/*", scope: "session", read });
    expect([single, collection, external].map(isResourceDefinition)).toEqual([true, true, true]);
    expect([single, collection, external].map(isSingleResourceDefinition)).toEqual([true, false, false]);
    expect([single, collection, external].map(isCollectionDefinition)).toEqual([false, true, false]);
    expect([single, collection, external].map(isExternalCollectionDefinition)).toEqual([false, false, true]);
    expect(isResourceDefinition({ type: "single", scope: "session" })).toBe(false);
    expect(isResourceDefinition({ [Symbol.for("flowrt.definition")]: "resource", type: "weird" })).toBe(
      false,
    );
    expect(isResourceDefinition(null)).toBe(false);
    // Another installed copy of core brands with the same registered symbol.
    expect(isSingleResourceDefinition({ ...single })).toBe(true);
  });
});

describe("handle identity", () => {
  it("uri is scope/path with the path kept verbatim", () => {
    const identity = resourceIdentity("user", "files/readme.md");
    expect(identity).toEqual({ path: "files/readme.md", scope: "user", uri: "user/files/readme.md" });
    expect(Object.isFrozen(identity)).toBe(true);
    expect(resourceIdentity("session", "a/../b").uri).toBe("session/a/../b");
  });

  it("a collection instance's path comes from its pattern", () => {
    const files = defineResourceCollection({ pattern: "files/**", scope: "session" });
    expect(resourceIdentity(files.scope, files.compiledPattern.toPath("readme.md")).uri).toBe(
      "session/files/readme.md",
    );
    const notes = defineResourceCollection({ pattern: "[topic]/notes", scope: "org" });
    expect(resourceIdentity(notes.scope, notes.compiledPattern.toPath({ topic: "t1" })).path).toBe(
      "t1/notes",
    );
  });

  it("a single resource's path is its ref, else its accessor name", () => {
    expect(singleResourcePath(defineResource({ scope: "session" }), "brief")).toBe("brief");
    expect(singleResourcePath(defineResource({ scope: "session", ref: "shared-brief" }), "brief")).toBe(
      "shared-brief",
    );
  });

  it("parseResourceUri inverts the uri", () => {
    expect(parseResourceUri("org/t1/notes")).toEqual({ scope: "org", path: "t1/notes" });
    expect(parseResourceUri("team/x")).toBeUndefined();
    expect(parseResourceUri("session/")).toBeUndefined();
    expect(parseResourceUri("session")).toBeUndefined();
  });
});
