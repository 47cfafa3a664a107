import { setTimeout as sleep } from "node:timers/promises";
import { defineResourceCollection, type HandleOf, handler } from "@flowrt/core";
import { z } from "zod";
import { profile } from "./profile.js";

/**
 * Session scope: the conversation's notes, one instance per note under `notes/<slug>`, state `{ title, pinned }`
 * and the note's text as content. Clients get the full CRUD set and the list; `live` streams item changes; the
 * assistant reads and writes them through the content tools (`llmReadable`, `llmWritable`).
 */
export const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default(""), pinned: z.boolean().default(false) }),
  prefetchWindow: 5,
  llmReadable: true,
  llmWritable: true,
  client: {
    content: { read: true, create: true, update: true, delete: true },
    state: { read: true },
    live: true,
  },
});

/** A note's key: its title, lower-case and dashed. */
export function slug(title: string): string {
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

/** Writes both resources: a new note (state and text) and the user's profile counters. */
export const addNote = handler({
  name: "addNote",
  description: "Adds a note (title and text) to this session's notebook.",
  resources: { notes, profile },
  inputSchema: noteInput,
  outputSchema: z.object({ topic: z.string(), noteCount: z.number() }),
  execute: (input, ctx) => writeNote(input, ctx.resources),
});

/**
 * Adds the note after `delaySeconds` (a reminder). Its action is durable: a server stopped meanwhile leaves it for
 * the next start, which runs it again (the wait included) and adds the note once.
 */
export const addNoteLater = handler({
  name: "addNoteLater",
  description: "Adds a note after a delay of up to an hour.",
  resources: { notes, profile },
  inputSchema: noteInput.extend({ delaySeconds: z.number().int().min(0).max(3_600) }),
  outputSchema: z.object({ topic: z.string(), noteCount: z.number() }),
  execute: async (input, ctx) => {
    // Stops waiting when the run is stopped (an abort, or a shutdown past its grace period).
    await sleep(input.delaySeconds * 1_000, undefined, { signal: ctx.signal });
    return writeNote(input, ctx.resources);
  },
});
