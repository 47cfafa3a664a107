import type { SignedPart } from "./hmac.js";

/**
 * The body to sign, as received: a string (signed as its UTF-8 bytes, without copying it into a buffer first)
 * or bytes. `undefined` for a value that is not a body; the verifier then answers `false` rather than signing
 * something other than what the provider sent.
 */
export function signedBody(rawBody: unknown): SignedPart | undefined {
  if (typeof rawBody === "string" || rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  return undefined;
}

/** The bytes of a raw body (a string as UTF-8), for code that needs bytes; see {@link signedBody}. */
export function rawBodyBytes(rawBody: unknown): Uint8Array | undefined {
  const body = signedBody(rawBody);
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}
