import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineResource, defineResourceCollection, type FlowStores, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const address = { scope: "session" as const, scopeId: "s1", bucket: SHARED_BUCKET };

describe.each(STORE_FACTORIES)("single resources ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  const profile = defineResource({
    scope: "session",
    stateSchema: z.object({
      title: z.string().default("untitled"),
      n: z.number().default(0),
      tags: z.array(z.string()).default([]),
    }),
    content: "Hello {name}",
    render: (content, state) => content.replace("{name}", state.title),
  });

  async function scopeWith(declarations: Record<string, any>) {
    const t = makeContext(stores);
    const scope = createResourceScope(t.ctx, declarations);
    await scope.load();
    return { ...t, scope, h: scope.handles as Record<string, any> };
  }

  it("state is a synchronous getter with stateSchema defaults before anything is stored", async () => {
    const { h } = await scopeWith({ profile });
    expect(h.profile.state).toEqual({ title: "untitled", n: 0, tags: [] });
    expect(await stores.resources.getState(address, "profile")).toBeNull();
  });

  it("state read before the resource is loaded throws a clear error", async () => {
    const t = makeContext(stores);
    const scope = createResourceScope(t.ctx, { profile });
    expect(() => scope.handles.profile.state).toThrow(/before it was loaded/);
  });

  it("patchState, setState, updateState, incState and pushState persist and update state", async () => {
    const { h } = await scopeWith({ profile });
    await h.profile.patchState({ title: "a" });
    await h.profile.incState({ n: 2 });
    await h.profile.pushState("tags", "x");
    await h.profile.updateState((s: any) => ({ ...s, n: s.n * 10 }));
    expect(h.profile.state).toEqual({ title: "a", n: 20, tags: ["x"] });
    await h.profile.setState({ n: 1 });
    expect(h.profile.state).toEqual({ title: "untitled", n: 1, tags: [] });
    expect((await stores.resources.getState(address, "profile"))?.state).toEqual({
      title: "untitled",
      n: 1,
      tags: [],
    });
  });

  it("default: the definition's initial state is read until the first write", async () => {
    const seeded = defineResource({
      scope: "session",
      stateSchema: z.object({ n: z.number() }),
      default: { n: 5 },
    });
    const { h } = await scopeWith({ seeded });
    expect(h.seeded.state).toEqual({ n: 5 });
    await h.seeded.incState({ n: 1 });
    expect((await stores.resources.getState(address, "seeded"))?.state).toEqual({ n: 6 });
  });

  it("writable: false refuses all five state writers, storing nothing and emitting nothing", async () => {
    const fixed = defineResource({
      scope: "session",
      stateSchema: z.object({ n: z.number().default(0), l: z.array(z.number()).default([]) }),
      writable: false,
      client: { expose: ["n"], live: true },
    });
    const { h, events } = await scopeWith({ fixed });
    for (const write of [
      () => h.fixed.patchState({ n: 1 }),
      () => h.fixed.setState({ n: 1 }),
      () => h.fixed.updateState(() => ({ n: 1 })),
      () => h.fixed.incState({ n: 1 }),
      () => h.fixed.pushState("l", 1),
    ]) {
      expect((await rejection(write())).code).toBe("resource-write-refused");
    }
    expect(await stores.resources.getState(address, "fixed")).toBeNull();
    expect(events).toEqual([]);
  });

  it("a Date, Map, Set or class instance in a state write is refused, not stored as {} (a state is a JSON object)", async () => {
    const loose = defineResource({ scope: "session", stateSchema: z.object({}).catchall(z.any()) });
    const bag = defineResourceCollection({
      pattern: "bag/*",
      scope: "session",
      stateSchema: z.object({}).catchall(z.any()),
    });
    const { h, events } = await scopeWith({ loose, bag });
    class Point {
      x = 1;
    }
    for (const [value, found] of [
      [new Date(0), "Date"],
      [new Map([["a", 1]]), "Map"],
      [new Set([1]), "Set"],
      [new Point(), "Point"],
    ] as const) {
      for (const write of [
        () => h.loose.patchState({ v: value }),
        () => h.loose.setState({ v: value }),
        () => h.loose.getOrPatchState("v", () => value),
        () => h.bag.create("a", { v: value }),
      ]) {
        const error = await rejection(write());
        expect(error.code).toBe("resource-write-refused");
        expect(error.message).toContain(`field "v" holds ${found}, which is not JSON`);
      }
      const pushed = await rejection(h.loose.pushState("list", value));
      expect(pushed.message).toContain(`field "list[0]" holds ${found}, which is not JSON`);
    }
    expect(await stores.resources.getState(address, "loose")).toBeNull();
    expect(await stores.resources.getState(address, "bag/a")).toBeNull();
    expect(events).toEqual([]);
  });

  it("getOrPatchState returns a present field, counts a stored null as present, and stores nothing for undefined", async () => {
    const lazy = defineResource({
      scope: "session",
      stateSchema: z.object({ a: z.number().nullable().optional(), b: z.number().optional() }),
    });
    const { h } = await scopeWith({ lazy });
    expect(await h.lazy.getOrPatchState("b", () => undefined)).toBeUndefined();
    expect(await stores.resources.getState(address, "lazy")).toBeNull();
    await h.lazy.patchState({ a: null });
    let calls = 0;
    expect(await h.lazy.getOrPatchState("a", () => ++calls)).toBeNull();
    expect(calls).toBe(0);
    expect(await h.lazy.getOrPatchState("b", () => 7)).toBe(7);
    expect((await stores.resources.getState(address, "lazy"))?.state).toEqual({ a: null, b: 7 });
  });

  it("getOrPatchState is single-flight per key within a request; distinct keys compute in parallel", async () => {
    const lazy = defineResource({
      scope: "session",
      stateSchema: z.object({ a: z.number().optional(), b: z.number().optional() }),
    });
    const { h } = await scopeWith({ lazy });
    let computes = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const compute = async () => {
      computes++;
      await gate;
      return 1;
    };
    const all = Promise.all([
      h.lazy.getOrPatchState("a", compute),
      h.lazy.getOrPatchState("a", compute),
      h.lazy.getOrPatchState("b", compute),
    ]);
    await new Promise((r) => setTimeout(r, 5));
    expect(computes).toBe(2);
    release();
    expect(await all).toEqual([1, 1, 1]);
  });

  it("readContent renders through render; readContentRaw is the stored body (initial content until written)", async () => {
    const { h } = await scopeWith({ profile });
    await h.profile.patchState({ title: "Ada" });
    expect(await h.profile.readContent()).toBe("Hello Ada");
    expect(await h.profile.readContentRaw()).toBe("Hello {name}");
    await h.profile.writeContent("Bye {name}");
    expect(await h.profile.readContent()).toBe("Bye Ada");
    expect(await stores.resources.getContent(address, "profile")).toBe("Bye {name}");
  });

  it("writeContent refuses content that is not a string, storing nothing and emitting nothing", async () => {
    const { h, events } = await scopeWith({ profile });
    const refused = await rejection(h.profile.writeContent(42));
    expect(refused.code).toBe("resource-write-refused");
    expect(refused.message).toMatch(/content must be a string/);
    expect(await stores.resources.getContent(address, "profile")).toBeNull();
    expect(events).toEqual([]);
  });

  it("contentFile is read lazily as the initial body", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flowrt-content-"));
    const file = join(dir, "intro.md");
    const fromFile = defineResource({ scope: "session", contentFile: file });
    await writeFile(file, "from the file");
    const { h } = await scopeWith({ fromFile });
    expect(await h.fromFile.readContentRaw()).toBe("from the file");
  });

  it("contentTemplate renders Markdown with YAML frontmatter and a <system> body from state with LiquidJS", async () => {
    const prompt = defineResource({
      scope: "session",
      stateSchema: z.object({
        name: z.string().default("Ada"),
        items: z.array(z.string()).default(["a", "b"]),
      }),
      contentTemplate:
        "---\ntitle: Notes of {{ name }}\n---\n<system>\nHello {{ name }} ({{ frontmatter.title }}){% for i in items %} [{{ i }}]{% endfor %}\n</system>\n",
    });
    const { h } = await scopeWith({ prompt });
    expect(await h.prompt.readContent()).toBe(
      "---\ntitle: Notes of Ada\n---\n<system>\nHello Ada (Notes of Ada) [a] [b]\n</system>\n",
    );
  });

  it("contentTemplate cannot read files through include", async () => {
    const sneaky = defineResource({ scope: "session", contentTemplate: "{% include '/etc/hostname' %}" });
    const { h } = await scopeWith({ sneaky });
    expect((await rejection(h.sneaky.readContent())).code).toBe("internal-error");
  });

  it("contentTemplateRef reads the template from a live-editable resource at read time", async () => {
    const template = defineResource({ scope: "session", content: "Hi {{ who }}" });
    const card = defineResource({
      scope: "session",
      stateSchema: z.object({ who: z.string().default("Bo") }),
      contentTemplateRef: template,
    });
    const { h } = await scopeWith({ template, card });
    expect(await h.card.readContent()).toBe("Hi Bo");
    await h.template.writeContent("Bye {{ who }}!");
    expect(await h.card.readContent()).toBe("Bye Bo!");
    await h.card.writeContent("ignored body");
    expect(await h.card.readContent()).toBe("Bye Bo!");
  });
});
