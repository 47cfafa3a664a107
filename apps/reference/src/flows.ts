import { defineFlow, defineResource, defineResourceCollection, handler } from "@flowrt/core";
import { z } from "zod";

/**
 * The conversation's notes: one instance per note under `notes/<slug>`, state `{ title, pinned }` and the
 * note's text as content. Clients get the full CRUD set (create, read, update, delete) and the list.
 */
export const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default(""), pinned: z.boolean().default(false) }),
  prefetchWindow: 5,
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

/**
 * The user's profile, shared by all their sessions. Clients see a projection (`displayName` and
 * `noteCount`); `lastNoteTitle` stays server-side.
 */
export const profile = defineResource({
  scope: "user",
  stateSchema: z.object({
    displayName: z.string().default(""),
    noteCount: z.number().int().default(0),
    lastNoteTitle: z.string().nullable().default(null),
  }),
  client: { expose: ["displayName", "noteCount"], live: true },
});

function slug(title: string): string {
  const base = title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return base === "" ? "note" : base;
}

/** Writes both resources: a new note (state and text) and the user's profile counters. */
export const addNote = handler({
  name: "addNote",
  resources: { notes, profile },
  inputSchema: z.object({
    title: z.string().min(1).max(200),
    text: z.string().max(100_000).default(""),
    pinned: z.boolean().default(false),
  }),
  outputSchema: z.object({ topic: z.string(), noteCount: z.number() }),
  execute: async (input, ctx) => {
    let key = slug(input.title);
    // Same title twice: the second note gets a numbered key instead of failing on the taken one.
    for (let n = 2; await ctx.resources.notes.getOptional(key); n++) key = `${slug(input.title)}-${n}`;
    const note = await ctx.resources.notes.create(key, { title: input.title, pinned: input.pinned });
    await note.writeContent(input.text);
    await ctx.resources.profile.incState({ noteCount: 1 });
    await ctx.resources.profile.patchState({ lastNoteTitle: input.title });
    return { topic: note.path, noteCount: ctx.resources.profile.state.noteCount };
  },
});

/** Sets the name shown on the profile. */
export const setDisplayName = handler({
  name: "setDisplayName",
  resources: { profile },
  inputSchema: z.object({ displayName: z.string().min(1).max(80) }),
  execute: async (input, ctx) => {
    await ctx.resources.profile.patchState({ displayName: input.displayName });
    return { displayName: input.displayName };
  },
});

/** A notebook: session notes, a user profile, and actions that write them. */
export const notebook = defineFlow({
  kind: "notebook",
  description: "Take notes in a session; your profile counts them across sessions.",
  resources: { notes, profile },
  actions: { addNote: { block: addNote }, setDisplayName: { block: setDisplayName } },
});

export const flows = [notebook];
