import { defineResource, handler } from "@flowrt/core";
import { z } from "zod";

/**
 * User scope: the profile, shared by all the user's sessions. Clients see a projection (`displayName` and
 * `noteCount`), streamed live; `lastNoteTitle` stays server-side.
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

/** Sets the name shown on the profile. */
export const setDisplayName = handler({
  name: "setDisplayName",
  description: "Sets the display name on your profile.",
  resources: { profile },
  inputSchema: z.object({ displayName: z.string().min(1).max(80) }),
  execute: async (input, ctx) => {
    await ctx.resources.profile.patchState({ displayName: input.displayName });
    return { displayName: input.displayName };
  },
});
