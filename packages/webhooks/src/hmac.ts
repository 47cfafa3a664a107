import { createHmac, type KeyObject } from "node:crypto";
import type { WebhookAlgorithm } from "./types.js";

/** Signed bytes: a string stands for its UTF-8 encoding, as `Hmac.update` takes it. */
export type SignedPart = string | Uint8Array;

/**
 * The HMAC of `prefix` followed by `body`. The pieces are fed to the HMAC one after the other rather than
 * concatenated, so the body is never copied.
 */
export function hmac(
  algorithm: WebhookAlgorithm,
  key: KeyObject,
  prefix: SignedPart,
  body: SignedPart,
): Buffer {
  const mac = createHmac(algorithm, key);
  if (prefix.length > 0) mac.update(prefix);
  return mac.update(body).digest();
}

/** The HMAC of the parts, in order. */
export function hmacParts(algorithm: WebhookAlgorithm, key: KeyObject, parts: readonly SignedPart[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}
