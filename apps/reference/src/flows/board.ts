import { randomUUID } from "node:crypto";
import { defineResourceCollection, handler } from "@flowrt/core";
import { z } from "zod";
import { announceBoardChange } from "../board-feed/board-activity.js";

/**
 * Org scope: the shared board, one item per post under `board/<time>-<id>`, seen by every member of the org.
 * Clients read the list and each post's state; `live` streams each change's projected data.
 */
export const board = defineResourceCollection({
  pattern: "board/*",
  scope: "org",
  stateSchema: z.object({
    title: z.string().default(""),
    source: z.enum(["member", "stripe", "github", "digest"]).default("member"),
    by: z.string().default(""),
    at: z.string().default(""),
  }),
  client: { state: { read: true }, live: true },
});

const postInput = z.object({
  title: z.string().min(1).max(200),
  source: z.enum(["member", "stripe", "github"]).default("member"),
});

/** Posts to the org's board, then tells the org's board feed (so other members' pages follow it live). */
export const postToBoard = handler({
  name: "postToBoard",
  description: "Posts a line to your org's shared board.",
  resources: { board },
  inputSchema: postInput,
  outputSchema: z.object({ topic: z.string() }),
  execute: async (input, ctx) => {
    const at = new Date().toISOString();
    // Sorts by time; the random part keeps two posts of one millisecond apart.
    const key = `${at.replace(/[^0-9]/g, "")}-${randomUUID().slice(0, 8)}`;
    const post = await ctx.resources.board.create(key, { ...input, by: ctx.principal.userId, at });
    if (ctx.principal.orgId !== undefined) announceBoardChange(ctx.principal.orgId, ctx.requestId);
    return { topic: post.path };
  },
});
