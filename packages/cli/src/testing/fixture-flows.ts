import { defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import { z } from "zod";

/** Notes the client may create, read, update and delete. */
export const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

export const addNote = handler({
  name: "addNote",
  inputSchema: z.object({ key: z.string(), title: z.string() }),
  outputSchema: z.object({ added: z.number() }),
  execute: async (input, ctx) => {
    await ctx.resources.notes.create(input.key, { title: input.title });
    await ctx.session.incState({ added: 1 });
    return { added: Number(ctx.session.state.added) };
  },
});

/** A small real flow without authentication: body `userId` names the caller (development default). */
export const notebook = defineFlow({
  kind: "notebook",
  session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
  resources: { notes },
  actions: { addNote: { block: addNote } },
});

const wait = handler({
  name: "wait",
  inputSchema: z.object({}),
  execute: async (_input, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    await ctx.session.patchState({ waited: true });
    return { waited: true };
  },
});

/** A second flow without authentication, whose action holds until it is aborted. */
export const slow = defineFlow({
  kind: "slow",
  session: { stateSchema: z.object({ waited: z.boolean().default(false) }) },
  actions: { wait: { block: wait } },
});
