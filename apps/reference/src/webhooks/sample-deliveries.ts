import { createHmac, randomUUID } from "node:crypto";
import { webhookSecrets } from "./providers.js";

/** A delivery as a provider sends it: where to, the exact body, and the signed headers. */
export interface SignedDelivery {
  provider: "stripe" | "github";
  body: string;
  headers: Record<string, string>;
}

/** The sample events `pnpm --filter @flowrt/reference webhook <event>` knows. */
export const sampleEvents = ["invoice.paid", "issues"] as const;
export type SampleEvent = (typeof sampleEvents)[number];

/** A sample delivery of `event`, signed as its provider signs (Stripe: `t=…,v1=…`; GitHub: `sha256=…`). */
export function signedSample(event: SampleEvent, secrets = webhookSecrets): SignedDelivery {
  const id = randomUUID().slice(0, 8);
  if (event === "invoice.paid") {
    const body = JSON.stringify({
      id: `evt_${id}`,
      type: "invoice.paid",
      data: { object: { id: `in_${id}`, amount_paid: 4200, currency: "eur" } },
    });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac("sha256", secrets.stripe).update(`${t}.${body}`).digest("hex");
    return { provider: "stripe", body, headers: { "stripe-signature": `t=${t},v1=${v1}` } };
  }
  const body = JSON.stringify({
    action: "opened",
    issue: { number: 7, title: `Sample issue ${id}` },
    repository: { full_name: "acme/notebook" },
  });
  const signature = createHmac("sha256", secrets.github).update(body).digest("hex");
  return {
    provider: "github",
    body,
    headers: {
      "x-github-event": "issues",
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": `sha256=${signature}`,
    },
  };
}

/** Sends `delivery` to the app at `origin`; answers the status and the body text. */
export async function sendDelivery(origin: string, delivery: SignedDelivery, basePath = "/api/flows") {
  const response = await fetch(`${origin}${basePath}/notebook/webhooks/${delivery.provider}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...delivery.headers },
    body: delivery.body,
  });
  return { status: response.status, body: await response.text() };
}
