import {
  defineExternalCollection,
  defineResource,
  defineResourceCollection,
  type FlowStores,
} from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createContentTools, GREP_TIME_BUDGET_MS } from "./content-tools.js";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, STORE_FACTORIES } from "./testing/harness.js";

const guide = defineResource({ scope: "session", content: "alpha line\nbeta line", llmReadable: true });
const secret = defineResource({ scope: "session", content: "alpha secret" });
const draft = defineResource({ scope: "session", content: "draft", llmWritable: true });
const files = defineResourceCollection({
  pattern: "files/**",
  scope: "session",
  llmReadable: true,
  llmWritable: true,
});
const searches: unknown[] = [];
const catalog = defineExternalCollection({
  pattern: "cat/*",
  scope: "user",
  stateSchema: z.object({ title: z.string() }),
  llmReadable: true,
  contentTemplate: "Book {{ title }}",
  read: ({ key }) => (key === "b1" ? { title: "Dune" } : null),
  search: ({ query }) => {
    searches.push(query);
    return { hits: [{ key: "b1", state: { title: "Dune" } }] };
  },
});

describe.each(STORE_FACTORIES)("generic content tools ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
    searches.length = 0;
  });
  afterEach(() => destroy());

  async function tools() {
    const scope = createResourceScope(makeContext(stores).ctx, { guide, secret, draft, files, catalog });
    await scope.load();
    await (await (scope.handles.files as any).create("src/a.ts")).writeContent("const alpha = 1;");
    const set = createContentTools(scope);
    const call = (name: string, input: unknown) =>
      (set[name]!.execute as any)(input, { toolCallId: "t", messages: [] });
    return { scope, call, set };
  }

  it("exposes the tools under their names", async () => {
    const { set } = await tools();
    expect(Object.keys(set).sort()).toEqual([
      "globResources",
      "grepResourceContent",
      "readResourceContent",
      "searchResources",
      "writeResourceContent",
    ]);
  });

  it("readResourceContent reaches llmReadable resources by uri only, external uris read directly", async () => {
    const { call } = await tools();
    expect(await call("readResourceContent", { uri: "session/guide" })).toEqual({
      uri: "session/guide",
      content: "alpha line\nbeta line",
    });
    expect(await call("readResourceContent", { uri: "session/files/src/a.ts" })).toEqual({
      uri: "session/files/src/a.ts",
      content: "const alpha = 1;",
    });
    expect(await call("readResourceContent", { uri: "user/cat/b1" })).toEqual({
      uri: "user/cat/b1",
      content: "Book Dune",
    });
    expect(await call("readResourceContent", { uri: "session/secret" })).toMatchObject({
      error: expect.stringMatching(/llmReadable/),
    });
    expect(await call("readResourceContent", { uri: "session/draft" })).toMatchObject({
      error: expect.any(String),
    });
  });

  it("writeResourceContent reaches llmWritable resources only (independent of llmReadable)", async () => {
    const { call, scope } = await tools();
    expect(await call("writeResourceContent", { uri: "session/draft", content: "new" })).toEqual({
      uri: "session/draft",
      written: true,
    });
    expect(await (scope.handles.draft as any).readContentRaw()).toBe("new");
    expect(await call("writeResourceContent", { uri: "session/files/b.md", content: "made" })).toEqual({
      uri: "session/files/b.md",
      written: true,
    });
    expect(await call("writeResourceContent", { uri: "session/guide", content: "x" })).toMatchObject({
      error: expect.stringMatching(/llmWritable/),
    });
    expect(await (scope.handles.guide as any).readContentRaw()).toBe("alpha line\nbeta line");
  });

  it("globResources and grepResourceContent skip external collections and unreadable resources", async () => {
    const { call } = await tools();
    expect(await call("globResources", { pattern: "**" })).toEqual({
      uris: ["session/guide", "session/files/src/a.ts"],
      truncated: false,
    });
    expect(await call("globResources", { pattern: "session/files/**/*.ts" })).toEqual({
      uris: ["session/files/src/a.ts"],
      truncated: false,
    });
    expect(await call("grepResourceContent", { pattern: "alpha" })).toEqual({
      matches: [
        { uri: "session/guide", line: 1, text: "alpha line" },
        { uri: "session/files/src/a.ts", line: 1, text: "const alpha = 1;" },
      ],
      truncated: false,
    });
    expect(searches).toEqual([]);
    expect(await call("grepResourceContent", { pattern: "(" })).toMatchObject({
      error: expect.stringMatching(/regular expression/),
    });
  });

  it("a glob may leave the scope out (files/**: the path, in every scope), for globResources and grep's uriGlob", async () => {
    const { call } = await tools();
    expect(await call("globResources", { pattern: "files/**" })).toEqual({
      uris: ["session/files/src/a.ts"],
      truncated: false,
    });
    expect(await call("globResources", { pattern: "guide" })).toEqual({
      uris: ["session/guide"],
      truncated: false,
    });
    expect(await call("globResources", { pattern: "user/**" })).toEqual({ uris: [], truncated: false });
    expect(await call("grepResourceContent", { pattern: "alpha", uriGlob: "files/**" })).toEqual({
      matches: [{ uri: "session/files/src/a.ts", line: 1, text: "const alpha = 1;" }],
      truncated: false,
    });
  });

  it("an external record without a content template is read as its state", async () => {
    const plain = defineExternalCollection({
      pattern: "crm/*",
      scope: "user",
      stateSchema: z.object({ name: z.string() }),
      llmReadable: true,
      read: ({ key }) => (key === "acme" ? { name: "Acme Corp" } : null),
    });
    const scope = createResourceScope(makeContext(stores).ctx, { plain });
    await scope.load();
    const read = createContentTools(scope).readResourceContent!.execute as (
      input: unknown,
      options: unknown,
    ) => Promise<unknown>;
    expect(await read({ uri: "user/crm/acme" }, { toolCallId: "t", messages: [] })).toEqual({
      uri: "user/crm/acme",
      content: null,
      state: { name: "Acme Corp" },
    });
  });

  it("grepResourceContent stops a pattern that backtracks catastrophically, within its time budget", async () => {
    const { call, scope } = await tools();
    // (a+)+$ against 29 a's and a "!" backtracks for seconds, holding the event loop; each more a doubles it.
    await (await (scope.handles.files as any).create("evil.txt")).writeContent(`${"a".repeat(29)}!`);
    const started = performance.now();
    const result = await call("grepResourceContent", { pattern: "^(a+)+$" });
    const tookMs = performance.now() - started;
    expect(result).toEqual({ error: expect.stringContaining(`took longer than ${GREP_TIME_BUDGET_MS} ms`) });
    expect(tookMs).toBeLessThan(GREP_TIME_BUDGET_MS * 4);
    // An ordinary pattern still searches everything after it, and results stay capped.
    const many = await (scope.handles.files as any).create("many.txt");
    await many.writeContent(Array.from({ length: 250 }, (_, i) => `line ${i}`).join("\n"));
    const capped = await call("grepResourceContent", { pattern: "^line", uriGlob: "**/many.txt" });
    expect(capped.matches).toHaveLength(200);
    expect(capped.truncated).toBe(true);
    expect(capped.matches[199]).toEqual({ uri: "session/files/many.txt", line: 200, text: "line 199" });
  });

  it("an org resource in a session bound to no org is refused as such, not as lacking llmReadable", async () => {
    const orgDoc = defineResource({
      scope: "org",
      content: "org guide",
      llmReadable: true,
      llmWritable: true,
    });
    const orgFiles = defineResourceCollection({ pattern: "o/*", scope: "org", llmReadable: true });
    const scope = createResourceScope(makeContext(stores, { session: { orgId: undefined } }).ctx, {
      orgDoc,
      orgFiles,
      guide,
    });
    await scope.load();
    const set = createContentTools(scope);
    const call = (name: string, input: unknown) =>
      (set[name]!.execute as any)(input, { toolCallId: "t", messages: [] });
    for (const [name, input] of [
      ["readResourceContent", { uri: "org/orgDoc" }],
      ["readResourceContent", { uri: "org/o/p.md" }],
      ["writeResourceContent", { uri: "org/orgDoc", content: "x" }],
    ] as const) {
      expect(await call(name, input)).toEqual({ error: expect.stringMatching(/is not bound to an org/) });
    }
    // Another scope's uri still gets the usual answer.
    expect(await call("readResourceContent", { uri: "session/nothing" })).toEqual({
      error: expect.stringMatching(/needs llmReadable/),
    });
  });

  it("searchResources routes external collections to their search hook", async () => {
    const { call } = await tools();
    // The stub hook answers every query with b1: what it returns is what the tool reports.
    expect(await call("searchResources", { query: "beta" })).toEqual({
      results: [
        { uri: "session/guide", ref: "guide" },
        { uri: "user/cat/b1", ref: "catalog" },
      ],
    });
    expect(searches).toEqual([{ search: "beta", limit: 20 }]);
    expect(await call("searchResources", { query: "dune", ref: "catalog" })).toEqual({
      results: [{ uri: "user/cat/b1", ref: "catalog" }],
    });
  });
});
