import { createWebhookVerifier } from "./create-webhook-verifier.js";
import type { VerifyResult, WebhookSecret, WebhookVerify } from "./types.js";

export interface AlphaWebhookVerifierOptions {
  /** Header carrying `t=<timestamp>,v1=<hex>`. @default "stripe-signature" */
  header?: string;
  /** Largest accepted distance between the signed timestamp and the clock, either way. @default 300 */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

/**
 * Verifies the timestamped format Stripe uses: header `t=<timestamp>,v1=<hex>[,v1=<hex>...]`, HMAC-SHA256 over
 * `<timestamp>.<rawBody>`, any `v1` may match, timestamps outside the window (stale or future) rejected.
 *
 * @example
 * const verify = alphaWebhookVerifier(process.env.STRIPE_WEBHOOK_SECRET!);
 * verify(rawBody, req.headers); // true or false
 */
export function alphaWebhookVerifier<S extends WebhookSecret>(
  secret: S,
  options: AlphaWebhookVerifierOptions = {},
): WebhookVerify<VerifyResult<S>> {
  return createWebhookVerifier({
    format: "alpha",
    header: options.header ?? "stripe-signature",
    secret,
    toleranceSeconds: options.toleranceSeconds,
    now: options.now,
  });
}
