import { randomUUID } from "node:crypto";
import { handler } from "@flowrt/core";
import { z } from "zod";
import { announceBoardChange } from "../board-feed/board-activity.js";
import { board } from "./board.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The daily digest the notebook's schedule runs: counts the org board's posts of the last 24 hours by source and
 * posts one line about them. It runs as the schedule's principal (the `digest` user of the webhook org), with no
 * caller and no resolver: see `schedules` in `notebook.ts`.
 */
export const postDigest = handler({
  name: "postDigest",
  description: "Posts a summary of the last day's board to the org's board.",
  resources: { board },
  outputSchema: z.object({ posts: z.number().int(), topic: z.string() }),
  execute: async (_input, ctx) => {
    const now = new Date();
    const since = new Date(now.getTime() - DAY_MS).toISOString();
    const recent = (await ctx.resources.board.list()).filter(
      (post) => post.state.at >= since && post.state.source !== "digest",
    );
    const bySource = new Map<string, number>();
    for (const post of recent) bySource.set(post.state.source, (bySource.get(post.state.source) ?? 0) + 1);
    const parts = [...bySource].map(([source, count]) => `${source} ${count}`).join(", ");
    const title = `Daily digest: ${recent.length} ${recent.length === 1 ? "post" : "posts"} in the last 24 hours${parts ? ` (${parts})` : ""}`;
    const at = now.toISOString();
    const key = `${at.replace(/[^0-9]/g, "")}-${randomUUID().slice(0, 8)}`;
    const post = await ctx.resources.board.create(key, {
      title,
      source: "digest",
      by: ctx.principal.userId,
      at,
    });
    if (ctx.principal.orgId !== undefined) announceBoardChange(ctx.principal.orgId, ctx.requestId);
    return { posts: recent.length, topic: post.path };
  },
});
