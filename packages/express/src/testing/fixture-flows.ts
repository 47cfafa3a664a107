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

let release: (() => void) | undefined;
let held = new Promise<void>((resolve) => {
  release = resolve;
});

/** Lets every `wait` run that is holding finish, and makes later runs hold again. */
export function releaseWaiters(): void {
  release?.();
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
}

const wait = handler({
  name: "wait",
  inputSchema: z.object({}),
  execute: async (_input, ctx) => {
    await Promise.race([
      held,
      new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true })),
    ]);
    await ctx.session.patchState({ waited: true });
    return { waited: true };
  },
});

/** A flow whose action holds until the test releases it, for streams that stay idle. */
export const slow = defineFlow({
  kind: "slow",
  session: { stateSchema: z.object({ waited: z.boolean().default(false) }) },
  actions: { wait: { block: wait } },
});
