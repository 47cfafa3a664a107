import {
  defineFlow,
  defineResource,
  defineResourceCollection,
  handler,
  type PrincipalResolver,
} from "@flowrt/core";
import { z } from "zod";

/**
 * Flows for the conversation lifecycle tests (rename, request history, delete, erase): session-, user- and
 * org-scope state and resources, a collection to fill, actions that hold until aborted, and one that renames its
 * session through `ctx.session`.
 */

/** `x-user` (and `x-org`) name the principal; no `x-user` is nobody (401 on an addressed route). */
export const headerResolver: PrincipalResolver = (context) => {
  const headers = context.request?.headers ?? {};
  const userId = headers["x-user"];
  if (typeof userId !== "string" || userId === "") return null;
  const orgId = headers["x-org"];
  return typeof orgId === "string" && orgId !== "" ? { userId, orgId } : { userId };
};

export const items = defineResourceCollection({
  pattern: "items/*",
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

/** A user-scope collection (in the shared bucket, or the flow's own when it isolates user state). */
export const bookmarks = defineResourceCollection({
  pattern: "bookmarks/*",
  scope: "user",
  stateSchema: z.object({ url: z.string().default("") }),
});

/** An org-scope single resource: the org's, kept by `eraseUser`. */
export const orgNotes = defineResource({
  scope: "org",
  stateSchema: z.object({ edits: z.number().default(0) }),
});

/** Created with the handlers, released by {@link releaseHolds} or an abort. */
let release: () => void = () => {};
let gate = new Promise<void>((resolve) => {
  release = resolve;
});

export function releaseHolds(): void {
  release();
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
}

/** What each `hold` run saw after it was aborted: the refusal of its write, by request id. */
export const afterAbort = new Map<string, string>();

const fill = handler({
  name: "fill",
  inputSchema: z.object({ count: z.number().int().min(0), prefix: z.string().default("k") }),
  execute: async (input, ctx) => {
    for (let i = 0; i < input.count; i++) {
      const item = await ctx.resources.items.create(`${input.prefix}${String(i).padStart(4, "0")}`, { n: i });
      await item.writeContent(`item ${i}`);
    }
    await ctx.session.incState({ count: input.count });
    return { filled: input.count };
  },
});

/** Writes the session, user and org scopes (and a bookmark, and the org resource when there is an org). */
const touch = handler({
  name: "touch",
  inputSchema: z.object({ key: z.string().default("b") }),
  execute: async (input, ctx) => {
    await ctx.session.incState({ count: 1 });
    await ctx.user.incState({ visits: 1 });
    const bookmark = await ctx.resources.bookmarks.getOrCreate(input.key, { url: `https://x/${input.key}` });
    await bookmark.writeContent(`bookmark ${input.key}`);
    if (ctx.principal.orgId !== undefined) {
      await ctx.org.incState({ touches: 1 });
      await ctx.resources.orgNotes.incState({ edits: 1 });
    }
    return { ok: true };
  },
});

/**
 * Writes the session state, then holds until released or aborted; once aborted it waits a moment and tries to
 * write again (the refusal is recorded in {@link afterAbort}), so a removal that did not wait for it would see a
 * write land after it.
 */
const hold = handler({
  name: "hold",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    await ctx.session.incState({ count: 1 });
    await Promise.race([
      gate,
      new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true })),
    ]);
    if (ctx.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      try {
        await ctx.session.incState({ count: 1 });
        afterAbort.set(ctx.requestId, "written");
      } catch (error) {
        afterAbort.set(ctx.requestId, (error as { code?: string }).code ?? "error");
      }
    }
    return { held: true };
  },
});

/** Renames its session through `ctx.session` (`title: null` removes it; `metadata` is merged). */
const rename = handler({
  name: "rename",
  inputSchema: z.object({
    title: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  execute: async (input, ctx) => {
    if (input.title !== undefined) await ctx.session.setTitle(input.title);
    if (input.metadata !== undefined) await ctx.session.setMetadata(input.metadata as never);
    return { ok: true };
  },
});

const fail = handler({
  name: "fail",
  inputSchema: z.object({}).default({}),
  execute: async () => {
    throw new Error("boom");
  },
});

const session = {
  stateSchema: z.object({ count: z.number().default(0) }),
  client: { expose: ["count"] as "count"[] },
};
const user = { stateSchema: z.object({ visits: z.number().default(0) }) };
const org = { stateSchema: z.object({ touches: z.number().default(0) }) };
const resources = { items, bookmarks, orgNotes };
const actions = { fill, touch, hold, rename, fail };

/** Owner-checked through its own resolver. */
export const notes = defineFlow({
  kind: "notes",
  authentication: { resolvePrincipal: headerResolver },
  session,
  user,
  org,
  resources,
  actions,
});

/** A second flow, for "every flow" (the same user and org scopes, shared with `notes`). */
export const journal = defineFlow({
  kind: "journal",
  authentication: { resolvePrincipal: headerResolver },
  session,
  user,
  org,
  resources,
  actions,
});

/** A flow that keeps its user state (and user-scope resources) in a bucket of its own. */
export const vault = defineFlow({
  kind: "vault",
  authentication: { resolvePrincipal: headerResolver },
  isolateUserState: true,
  session,
  user: { stateSchema: z.object({ secrets: z.number().default(0), visits: z.number().default(0) }) },
  org,
  resources,
  actions,
});

export const lifecycleFlows = [notes, journal, vault];
