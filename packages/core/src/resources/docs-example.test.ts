/** The example at the top of docs/resources.md, kept compiling and behaving as the page says. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ExternalQuery } from "../runtime-types.js";
import { hasClientData, isListedInManifest, projectClientData } from "./client-projection.js";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";
import { lifecycleSchema } from "./lifecycle-schema.js";

const ticketStore = {
  find: async (_org: string, key: string) => (key === "t1" ? { title: "Broken build", open: true } : null),
  search: async (_org: string, _query: ExternalQuery) => ({ hits: [] }),
};

const brief = defineResource({
  name: "brief",
  scope: "session",
  stateSchema: z.object({
    approved: z.boolean().default(false),
    reviewer: z.string().nullable().default(null),
  }),
  contentFile: { path: "./brief.md", importerUrl: import.meta.url },
  client: { content: { read: true, prefetch: true }, expose: ["approved"], live: true },
});

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "user",
  stateSchema: z.object({ title: z.string().default(""), pinned: z.boolean().default(false) }),
  maxInstances: 200,
  eviction: "lru",
  prefetchWindow: 10,
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
  onInstanceCreated: (key, state, ctx) => ctx.log(`note ${key} created: ${state.title}`),
});

const jobs = defineResourceCollection({
  pattern: "[project]/jobs/[job]",
  scope: "org",
  stateSchema: z.object({ ...lifecycleSchema(["queued", "running", "done", "failed"]), url: z.string() }),
  client: { state: { read: true }, exclude: ["url"] },
});

const tickets = defineExternalCollection({
  pattern: "tickets/*",
  scope: "org",
  stateSchema: z.object({ title: z.string(), open: z.boolean() }),
  read: async ({ key, ctx }) => ticketStore.find(ctx.scopeId, key),
  search: async ({ query, ctx }) => ticketStore.search(ctx.scopeId, query),
  client: { state: { read: true } },
});

describe("docs/resources.md example", () => {
  it("defines the four resources the page describes", () => {
    expect(brief.contentFilePath?.endsWith("/src/resources/brief.md")).toBe(true);
    expect(projectClientData(brief, { approved: true, reviewer: "ann" })).toEqual({ approved: true });
    expect(notes.compiledPattern.toPath("n1")).toBe("notes/n1");
    expect(isListedInManifest(notes)).toBe(true);
    const log: string[] = [];
    notes.onInstanceCreated?.(
      "notes/n1",
      { title: "Hello", pinned: false },
      { log: (m) => log.push(m), scopeType: "user" },
    );
    expect(log).toEqual(["note notes/n1 created: Hello"]);
    expect(jobs.compiledPattern.toPath({ project: "p1", job: "j1" })).toBe("p1/jobs/j1");
    expect(projectClientData(jobs, { status: "done", url: "secret", errorMessage: null })).toEqual({
      status: "done",
      errorMessage: null,
    });
    expect(hasClientData(tickets)).toBe(true);
  });

  it("the external read hook answers through the application's store", async () => {
    const ctx = { scope: "org" as const, scopeId: "o1", userId: "u1", flowKind: "demo" };
    expect(await tickets.read({ key: "t1", ctx })).toEqual({ title: "Broken build", open: true });
    expect(await tickets.read({ key: "t2", ctx })).toBeNull();
  });
});
