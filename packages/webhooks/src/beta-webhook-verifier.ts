import { createWebhookVerifier } from "./create-webhook-verifier.js";
import type { VerifyResult, WebhookSecret, WebhookVerify } from "./types.js";

export interface BetaWebhookVerifierOptions {
  /** Header carrying `sha256=<hex>`. @default "x-hub-signature-256" */
  header?: string;
}

/**
 * Verifies the format GitHub uses: header `sha256=<hex>`, HMAC-SHA256 over the raw body. The format carries no
 * timestamp, so it has no replay window; deduplicate on the delivery id if replays matter.
 *
 * @example
 * const verify = betaWebhookVerifier(process.env.GITHUB_WEBHOOK_SECRET!);
 * verify(rawBody, req.headers); // true or false
 */
export function betaWebhookVerifier<S extends WebhookSecret>(
  secret: S,
  options: BetaWebhookVerifierOptions = {},
): WebhookVerify<VerifyResult<S>> {
  return createWebhookVerifier({
    format: "raw",
    header: options.header ?? "x-hub-signature-256",
    prefix: "sha256=",
    secret,
  });
}
