import { createWebhookVerifier } from "./create-webhook-verifier.js";
import type { VerifyResult, WebhookSecret, WebhookVerify } from "./types.js";

export interface GammaWebhookVerifierOptions {
  /** Header carrying `v0=<hex>`. @default "x-slack-signature" */
  signatureHeader?: string;
  /** Header carrying the timestamp in seconds. @default "x-slack-request-timestamp" */
  timestampHeader?: string;
  /** Largest accepted distance between the signed timestamp and the clock, either way. @default 300 */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

const VERSION = "v0";

/**
 * Verifies the format Slack uses: HMAC-SHA256 over `v0:<timestamp>:<rawBody>`, signature `v0=<hex>` in one
 * header, timestamp in another. The timestamp header's literal text is what is signed (and it must be plain
 * decimal digits); timestamps outside the window (stale or future) are rejected.
 *
 * @example
 * const verify = gammaWebhookVerifier(process.env.SLACK_SIGNING_SECRET!);
 * verify(rawBody, req.headers); // true or false
 */
export function gammaWebhookVerifier<S extends WebhookSecret>(
  secret: S,
  options: GammaWebhookVerifierOptions = {},
): WebhookVerify<VerifyResult<S>> {
  const timestampHeader = options.timestampHeader ?? "x-slack-request-timestamp";
  if (typeof timestampHeader !== "string" || timestampHeader.length === 0) {
    throw new TypeError("gammaWebhookVerifier: timestampHeader must be a non-empty header name.");
  }
  return createWebhookVerifier({
    format: "custom",
    header: options.signatureHeader ?? "x-slack-signature",
    secret,
    toleranceSeconds: options.toleranceSeconds ?? 300,
    now: options.now,
    parseSignature: (value, { rawBody, header }) => {
      const timestamp = header(timestampHeader);
      if (timestamp === undefined || !value.startsWith(`${VERSION}=`)) return null;
      return {
        signatures: [value.slice(VERSION.length + 1)],
        timestamp,
        signedPayload: [`${VERSION}:${timestamp}:`, rawBody],
      };
    },
  });
}
