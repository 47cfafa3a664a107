import { setTimeout as sleep } from "node:timers/promises";
import { defineFlow, defineResource, defineResourceCollection, type HandleOf, handler } from "@flowrt/core";
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

const noteInput = z.object({
  title: z.string().min(1).max(200),
  text: z.string().max(100_000).default(""),
  pinned: z.boolean().default(false),
});

/** Writes both resources: a new note (state and text) and the user's profile counters. */
export const addNote = handler({
  name: "addNote",
  resources: { notes, profile },
  inputSchema: noteInput,
  outputSchema: z.object({ topic: z.string(), noteCount: z.number() }),
  execute: (input, ctx) => writeNote(input, ctx.resources),
});

/** The handles both note actions declare. */
interface NoteResources {
  notes: HandleOf<typeof notes>;
  profile: HandleOf<typeof profile>;
}

/** The note (state and text) and the profile's counters: what both note actions write. */
async function writeNote(input: z.output<typeof noteInput>, resources: NoteResources) {
  let key = slug(input.title);
  // Same title twice: the second note gets a numbered key instead of failing on the taken one.
  for (let n = 2; await resources.notes.getOptional(key); n++) key = `${slug(input.title)}-${n}`;
  const note = await resources.notes.create(key, { title: input.title, pinned: input.pinned });
  await note.writeContent(input.text);
  await resources.profile.incState({ noteCount: 1 });
  await resources.profile.patchState({ lastNoteTitle: input.title });
  return { topic: note.path, noteCount: resources.profile.state.noteCount };
}

/**
 * Adds the note after `delaySeconds` (a reminder). Its action is durable: a server stopped meanwhile leaves it for
 * the next start, which runs it again (the wait included) and adds the note once.
 */
export const addNoteLater = handler({
  name: "addNoteLater",
  resources: { notes, profile },
  inputSchema: noteInput.extend({ delaySeconds: z.number().int().min(0).max(3_600) }),
  outputSchema: z.object({ topic: z.string(), noteCount: z.number() }),
  execute: async (input, ctx) => {
    // Stops waiting when the run is stopped (an abort, or a shutdown past its grace period).
    await sleep(input.delaySeconds * 1_000, undefined, { signal: ctx.signal });
    return writeNote(input, ctx.resources);
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
  actions: {
    addNote: { block: addNote },
    addNoteLater: { block: addNoteLater, durable: true },
    setDisplayName: { block: setDisplayName },
  },
});

export const flows = [notebook];
