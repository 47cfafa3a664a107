import {
  defineFlow,
  defineResource,
  defineResourceCollection,
  handler,
  PrincipalResolutionError,
  type PrincipalResolver,
} from "@flowrt/core";
import { z } from "zod";

/**
 * Flows for the HTTP acceptance tests. Every resource exists to prove one rule of the specification's
 * resource endpoints; every action exists to produce one kind of request (streamed, held, failing).
 */

const noteState = z.object({ title: z.string().default("") });

/** Full client CRUD and the list: the ordinary case. */
export const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: noteState,
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

/** A deep pattern: multi-segment topics (`%2F`) and `topicPrefix` against the full key. */
export const docs = defineResourceCollection({
  pattern: "docs/**",
  scope: "session",
  stateSchema: noteState,
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

/** Content reads only: listing, item state, create, update and delete are undeclared (403). */
export const readOnly = defineResourceCollection({
  pattern: "ro/*",
  scope: "session",
  stateSchema: noteState,
  client: { content: { read: true } },
});

/** A required field without a default: a client create cannot seed it (400 naming `owner`). */
export const strict = defineResourceCollection({
  pattern: "strict/*",
  scope: "session",
  stateSchema: z.object({ owner: z.string() }),
  client: { content: { create: true }, state: { read: true } },
});

/** Content rendered from state (routing rule 9). */
export const templated = defineResourceCollection({
  pattern: "t/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("untitled") }),
  contentTemplate: "Title: {{ title }}",
  client: { content: { read: true, create: true }, state: { read: true } },
});

/** No client config: invisible (404) on every resource route. */
export const hidden = defineResourceCollection({
  pattern: "hidden/*",
  scope: "session",
  stateSchema: noteState,
});

/** A single resource whose content clients may read. */
export const readme = defineResource({
  scope: "session",
  content: "read me",
  client: { content: { read: true } },
});

/** A single resource with a projection but no content permission (403 on its content). */
export const counter = defineResource({
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { expose: ["n"] },
});

/** A single resource without client config (404). */
export const secretDoc = defineResource({ scope: "session", content: "server only" });

const resources = { notes, docs, readOnly, strict, templated, hidden, readme, counter, secretDoc };

let release: (() => void) | undefined;
let gate = new Promise<void>((resolve) => {
  release = resolve;
});

/** Lets every held action finish (the `hold` action and the second half of `steps`); later runs hold again. */
export function releaseHeld(): void {
  release?.();
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
}

function held(signal: AbortSignal): Promise<unknown> {
  return Promise.race([
    gate,
    new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
  ]);
}

/** Writes a note and bumps the session counter: `resource_change` and `state_change` events. */
const touch = handler({
  name: "touch",
  inputSchema: z.object({ key: z.string(), title: z.string() }),
  execute: async (input, ctx) => {
    await ctx.resources.notes.create(input.key, { title: input.title });
    await ctx.session.incState({ count: 1 });
    return { count: Number(ctx.session.state.count) };
  },
});

/**
 * Emits `before` custom `progress` events, optionally holds, then emits `after` more. (A custom type: the
 * engine's own types, `text.delta` included, are refused to `ctx.emit`.)
 */
const steps = handler({
  name: "steps",
  inputSchema: z.object({
    before: z.number().int().min(0),
    after: z.number().int().min(0),
    hold: z.boolean(),
  }),
  execute: async (input, ctx) => {
    for (let i = 1; i <= input.before; i++) await ctx.emit({ type: "progress", data: { text: `b${i}` } });
    if (input.hold) await held(ctx.signal);
    for (let i = 1; i <= input.after; i++) await ctx.emit({ type: "progress", data: { text: `a${i}` } });
    return { emitted: input.before + input.after };
  },
});

/** Holds until released or aborted: a request that stays active. */
const hold = handler({
  name: "hold",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    await held(ctx.signal);
    return { held: true };
  },
});

const fail = handler({
  name: "fail",
  inputSchema: z.object({}).default({}),
  execute: async () => {
    throw new Error("boom");
  },
});

const actions = {
  touch: { block: touch },
  steps: { block: steps },
  hold: { block: hold },
  fail: { block: fail },
};

const session = {
  stateSchema: z.object({ count: z.number().default(0) }),
  client: { expose: ["count"] as "count"[] },
};

function header(headers: Record<string, string | string[] | undefined> | undefined, name: string) {
  const value = headers?.[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** How many times {@link headerResolver} ran; tests reset it. */
export const resolverCalls = { count: 0 };

/**
 * The application's credential check, reduced to headers: `x-user` (and optional `x-org`, `x-tenant`)
 * name the principal. `x-user: expired` is a credential the app refuses with 401, `x-user: banned` one it
 * refuses with 403 (both through `PrincipalResolutionError`).
 */
export const headerResolver: PrincipalResolver = (context) => {
  resolverCalls.count++;
  const headers = context.request?.headers;
  const userId = header(headers, "x-user");
  if (userId === "expired") throw new PrincipalResolutionError("token expired", { status: 401 });
  if (userId === "banned") throw new PrincipalResolutionError("account suspended", { status: 403 });
  if (userId === undefined) return null;
  const orgId = header(headers, "x-org");
  const tenantId = header(headers, "x-tenant");
  return { userId, ...(orgId ? { orgId } : {}), ...(tenantId ? { tenantId } : {}) };
};

/** A flow with its own resolver: every addressed route is owner-checked. */
export const lab = defineFlow({
  kind: "lab",
  authentication: { resolvePrincipal: headerResolver },
  session,
  resources,
  actions,
});

/** The same shape without any resolver: the development default (`body.userId`, open management routes). */
export const open = defineFlow({ kind: "open", session, resources, actions });

/** A flow governed by the host-level resolver (no resolver of its own). */
export const shared = defineFlow({ kind: "shared", session, resources, actions });

/** One kind served as two named instances, each with the resolver. */
const multi = defineFlow({
  kind: "multi",
  authentication: { resolvePrincipal: headerResolver },
  session,
  actions: { touch: { block: touch }, hold: { block: hold } },
  resources: { notes },
});
export const multiA = multi.instance({ id: "multi-a" });
export const multiB = multi.instance({ id: "multi-b" });

/** A kind with a single instance under another id: a session without a recorded owner falls to it. */
export const solo = defineFlow({
  kind: "solo",
  authentication: { resolvePrincipal: headerResolver },
  session,
  actions: { touch: { block: touch } },
  resources: { notes },
}).instance({ id: "solo-1" });
