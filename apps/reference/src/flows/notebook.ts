import { defineFlow } from "@flowrt/core";
import { z } from "zod";
import { webhookOrgId } from "../auth/resolve-principal.js";
import { ask } from "./assistant.js";
import { board, postToBoard } from "./board.js";
import { postDigest } from "./digest.js";
import { addNote, addNoteLater, notes } from "./notes.js";
import { profile, setDisplayName } from "./profile.js";

type Stripe = { id: string; data?: { object?: { id?: string; amount_paid?: number; currency?: string } } };
type GitHub = {
  action?: string;
  issue?: { number?: number; title?: string };
  repository?: { full_name?: string };
};

/**
 * A notebook: session notes, a user profile, an org board, an assistant, and webhook deliveries that post to the
 * board. Deliveries run as the `webhooks` user of the webhook org (see `auth/resolve-principal.ts`).
 */
export const notebook = defineFlow({
  kind: "notebook",
  description: "Take notes in a session, keep a profile, share a board with your org, ask the assistant.",
  resources: { notes, profile, board },
  // The session's own state: how many questions the assistant answered in it (streamed as `state_change`).
  session: { stateSchema: z.object({ asked: z.number().int().default(0) }), client: { expose: ["asked"] } },
  actions: {
    addNote: { block: addNote },
    addNoteLater: { block: addNoteLater, durable: true },
    setDisplayName: { block: setDisplayName },
    postToBoard: { block: postToBoard },
    ask: { block: ask, onCompleted: (_output, ctx) => ctx.session.incState({ asked: 1 }) },
  },
  // Every day at 08:00 in UTC (FLOWRT_DIGEST_CRON to change it), one digest per org board, whatever the number
  // of hosts; after downtime the latest missed one runs once.
  schedules: {
    dailyDigest: {
      cron: process.env.FLOWRT_DIGEST_CRON || "0 8 * * *",
      timezone: "UTC",
      block: postDigest,
      principal: { userId: "digest", orgId: webhookOrgId },
    },
  },
  webhooks: {
    stripe: {
      on: {
        "invoice.paid": {
          block: postToBoard,
          input: (event) => {
            const invoice = (event.payload as Stripe).data?.object ?? {};
            const amount = ((invoice.amount_paid ?? 0) / 100).toFixed(2);
            return {
              title: `Invoice ${invoice.id ?? "?"} paid: ${amount} ${invoice.currency ?? ""}`.trim(),
              source: "stripe",
            };
          },
        },
      },
    },
    github: {
      on: {
        issues: {
          block: postToBoard,
          when: (event) => (event.payload as GitHub).action === "opened",
          input: (event) => {
            const { issue, repository } = event.payload as GitHub;
            return {
              title:
                `${repository?.full_name ?? "?"}#${issue?.number ?? "?"} opened: ${issue?.title ?? ""}`.slice(
                  0,
                  200,
                ),
              source: "github",
            };
          },
        },
      },
    },
  },
});
