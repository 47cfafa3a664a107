import { defineFlow, defineResource, defineResourceCollection, handler } from "@flowrt/core";
import { z } from "zod";

/**
 * Server-side flows for the typed client's tests and README example: the reference app's notebook (a
 * session collection of notes, a user profile) plus a second flow and a named instance, so that flow ids,
 * action names and resource refs have something to be told apart from.
 */
const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default(""), pinned: z.boolean().default(false) }),
  prefetchWindow: 5,
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

const profile = defineResource({
  scope: "user",
  stateSchema: z.object({
    displayName: z.string().default(""),
    noteCount: z.number().int().default(0),
    lastNoteTitle: z.string().nullable().default(null),
  }),
  client: { expose: ["displayName", "noteCount"], live: true },
});

/** Server-side only: no `client` block, so clients cannot address it. */
const audit = defineResource({ scope: "session", stateSchema: z.object({ writes: z.number().default(0) }) });

const addNote = handler({
  name: "addNote",
  resources: { notes, profile },
  inputSchema: z.object({
    title: z.string().min(1),
    text: z.string().default(""),
    pinned: z.boolean().default(false),
  }),
  outputSchema: z.object({ topic: z.string(), noteCount: z.number() }),
  execute: async (input, ctx) => {
    const note = await ctx.resources.notes.create(input.title.toLowerCase().replace(/\W+/g, "-"), {
      title: input.title,
      pinned: input.pinned,
    });
    await note.writeContent(input.text);
    await ctx.resources.profile.incState({ noteCount: 1 });
    await ctx.session.incState({ added: 1 });
    return { topic: note.path, noteCount: ctx.resources.profile.state.noteCount };
  },
});

const ping = handler({ name: "ping", execute: () => "pong" as const });

export const notebook = defineFlow({
  kind: "notebook",
  authentication: { resolvePrincipal: (c) => ({ userId: c.request?.headers["x-user"] }) },
  session: {
    stateSchema: z.object({ added: z.number().default(0), draft: z.string().default("") }),
    client: { expose: ["added"], derived: { summary: (state) => `${state.added} notes` } },
  },
  resources: { notes, profile, audit },
  actions: { addNote, ping: { block: ping, durable: true } },
});

/** The same notebook under its own id: its own sessions, the same actions. */
export const work = notebook.instance({ id: "work" });

const say = handler({
  name: "say",
  inputSchema: z.object({ text: z.string() }),
  execute: (input) => ({ echoed: input.text }),
});

export const chat = defineFlow({
  kind: "chat",
  authentication: { resolvePrincipal: (c) => ({ userId: c.request?.headers["x-user"] }) },
  actions: { say },
});

export const flows = [notebook, work, chat];
