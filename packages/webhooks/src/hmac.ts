import { createHmac, timingSafeEqual } from "node:crypto";
import { decodeSignature } from "./signature-encoding.js";
import type { WebhookAlgorithm, WebhookEncoding } from "./types.js";

/** The HMAC of the concatenated parts. */
export function hmac(algorithm: WebhookAlgorithm, secret: string, parts: readonly Uint8Array[]): Uint8Array {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Whether any candidate signature equals `expected`. Each comparison is constant-time, guarded by the length
 * check `timingSafeEqual` needs; every candidate is compared, so the time does not say which one matched.
 */
export function matchesAny(
  expected: Uint8Array,
  candidates: readonly string[],
  encoding: WebhookEncoding,
): boolean {
  let matched = false;
  for (const candidate of candidates) {
    const given = decodeSignature(candidate, encoding);
    if (given !== undefined && given.length === expected.length && timingSafeEqual(given, expected)) {
      matched = true;
    }
  }
  return matched;
}
