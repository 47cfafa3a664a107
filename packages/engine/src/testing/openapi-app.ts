import { defineFlow, defineResource, defineResourceCollection, handler } from "@flowrt/core";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import { z } from "zod";
import type { FlowHostOptions } from "../host-options.js";
import { createHttpHandler } from "../http/handler.js";
import { withHost } from "./fixtures.js";

/**
 * A host as an application writes one, for the OpenAPI tests (the strict linter, the generated client): a notebook
 * whose resolver reads a bearer token or a session cookie, a public flow without a resolver, a flow that does
 * not require a user, and a payments flow fed by signed webhooks. Its schemas cover what zod converts (defaults,
 * enums, unions, a recursive outline, a registered schema) and what it cannot (a date).
 */

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default(""), pinned: z.boolean().default(false) }),
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

const profile = defineResource({
  scope: "user",
  stateSchema: z.object({ displayName: z.string().default(""), noteCount: z.number().int().default(0) }),
  client: { expose: ["displayName", "noteCount"] },
});

/** A schema registered under an id: zod writes it as a `$defs` entry. */
const Tag = z.string().min(1).max(32).meta({ id: "Tag" });

interface Outline {
  title: string;
  children: Outline[];
}
/** A recursive schema: zod refers to it with `$ref`. */
const Outline: z.ZodType<Outline> = z.object({
  title: z.string(),
  get children() {
    return z.array(Outline);
  },
});

/** `notebook`'s `addNote` input: defaults (optional to a caller), an optional list, an enum. */
export const addNoteInput = z.object({
  title: z.string().min(1).max(200),
  text: z.string().max(100_000).default(""),
  pinned: z.boolean().default(false),
  tags: z.array(Tag).max(10).optional(),
  color: z.enum(["yellow", "blue", "green"]).default("yellow"),
});

export const addNoteOutput = z.object({ topic: z.string(), noteCount: z.number().int() });

const addNote = handler({
  name: "addNote",
  description: "Adds a note to the session and counts it on the profile.",
  resources: { notes, profile },
  inputSchema: addNoteInput,
  outputSchema: addNoteOutput,
  execute: async (input, ctx) => {
    await ctx.resources.notes.create(input.title, { title: input.title, pinned: input.pinned });
    await ctx.resources.profile.incState({ noteCount: 1 });
    return { topic: `notes/${input.title}`, noteCount: ctx.resources.profile.state.noteCount };
  },
});

const importOutline = handler({
  name: "importOutline",
  inputSchema: z.object({ outline: Outline, mode: z.union([z.literal("merge"), z.literal("replace")]) }),
  outputSchema: z.object({ imported: z.number().int() }),
  execute: async () => ({ imported: 1 }),
});

/** Its input holds a date: zod has no JSON Schema for it, so the document shows any JSON, and says why. */
const remindAt = handler({
  name: "remindAt",
  inputSchema: z.object({ at: z.date(), note: z.string() }),
  execute: async () => ({ ok: true }),
});

/** No schema at all. */
const ping = handler({ name: "ping", execute: async () => "pong" });

const notebook = defineFlow({
  kind: "notebook",
  description: "Notes in a session, counted on the user's profile.",
  authentication: {
    resolvePrincipal: async ({ request }) => {
      const bearer = request?.headers.authorization;
      const token = typeof bearer === "string" && bearer.startsWith("Bearer ") ? bearer.slice(7) : undefined;
      return { userId: token ?? request?.cookies?.session };
    },
  },
  resources: { notes, profile },
  actions: {
    addNote,
    importOutline: { block: importOutline, durable: true },
    remindAt,
  },
});

/** No resolver: the caller names its user in the body. */
const guestbook = defineFlow({
  kind: "guestbook",
  actions: {
    sign: handler({
      name: "sign",
      inputSchema: z.object({ name: z.string(), message: z.string().max(500) }).optional(),
      execute: async () => ({ ok: true }),
    }),
  },
});

/** A resolver, but no user required: an anonymous caller runs as the default user. */
const status = defineFlow({
  kind: "status-page",
  authentication: {
    resolvePrincipal: ({ request }) => ({ userId: request?.headers["x-user"] }),
    requireUser: false,
    defaultUserId: "anonymous",
  },
  actions: { ping },
});

const recordInvoice = handler({
  name: "recordInvoice",
  inputSchema: z.object({ id: z.string(), type: z.string() }).passthrough(),
  execute: async () => ({ recorded: true }),
});

const payments = defineFlow({
  kind: "payments",
  authentication: { requireUser: false, defaultUserId: "stripe" },
  webhooks: { stripe: { on: { "invoice.paid": { block: recordInvoice } } } },
});

/** The host's options, but its stores. */
export function openApiAppOptions(): Omit<FlowHostOptions, "stores"> {
  return {
    flows: [notebook, guestbook, status, payments],
    webhookProviders: {
      stripe: {
        verify: alphaWebhookVerifier("whsec_test"),
        eventType: (payload) => payload.type,
        deliveryId: (payload) => payload.id,
      },
    },
    openapi: {
      security: [
        { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        {
          type: "apiKey",
          in: "cookie",
          name: "session",
          description: "The session cookie the web page holds.",
        },
      ],
      info: {
        title: "Notebook API",
        version: "1.0.0",
        license: { name: "MIT", identifier: "MIT" },
      },
    },
  };
}

/** `GET /openapi.json` of that host, as served. */
export function openApiAppDocument(): Promise<Record<string, unknown>> {
  return withHost(openApiAppOptions(), async (host) => {
    const response = await createHttpHandler(host)({
      method: "GET",
      path: "/openapi.json",
      url: "/api/flows/openapi.json",
      query: {},
      headers: {},
    });
    if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
    return response.body as Record<string, unknown>;
  });
}
