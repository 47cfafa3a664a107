import { timingSafeEqual } from "node:crypto";
import type { WebhookAlgorithm, WebhookEncoding } from "./types.js";

/** Whether a candidate signature, as written in the header, is the expected digest. */
export type SignatureMatcher = (expected: Uint8Array, candidate: string) => boolean;

const DIGEST_BYTES: Readonly<Record<WebhookAlgorithm, number>> = { sha1: 20, sha256: 32, sha512: 64 };

/**
 * Builds the comparison for one algorithm and encoding. The digest length is known up front, so a candidate
 * of any other length is refused before it is decoded, and a candidate of the right length is decoded into a
 * buffer owned by the matcher (decoding and comparing run back to back, with no callback in between, so the
 * buffer is never shared by two checks). The comparison itself is `timingSafeEqual` on equal-length bytes.
 *
 * Decoding is strict. Hex must be whole bytes (either case): Node's hex decoder stops at the first pair that is
 * not hex, so a short decode means a bad character. Base64 and base64url must be the canonical spelling of the
 * bytes, with optional `=` padding: Node's decoders skip characters outside the alphabet, accept both alphabets
 * and ignore non-zero padding bits, so the decoded bytes must encode back to the text that was given. That way
 * two different strings never decode to the same accepted signature.
 */
export function createSignatureMatcher(
  algorithm: WebhookAlgorithm,
  encoding: WebhookEncoding,
): SignatureMatcher {
  const bytes = DIGEST_BYTES[algorithm];
  const given = Buffer.alloc(bytes);
  if (encoding === "hex") {
    const length = bytes * 2;
    return (expected, candidate) =>
      candidate.length === length &&
      given.write(candidate, 0, bytes, "hex") === bytes &&
      timingSafeEqual(given, expected);
  }
  // Characters of the canonical spelling without padding: 4 per 3 bytes, rounded up.
  const unpadded = Math.ceil((bytes * 4) / 3);
  return (expected, candidate) => {
    const padding = candidate.length - unpadded;
    if (padding < 0 || padding > 2) return false;
    for (let i = unpadded; i < candidate.length; i++)
      if (candidate.charCodeAt(i) !== 61 /* = */) return false;
    const text = padding === 0 ? candidate : candidate.slice(0, unpadded);
    if (given.write(text, 0, bytes, encoding) !== bytes) return false;
    // Node writes base64 with its padding and base64url without; the first `unpadded` characters are the data.
    const canonical = given.toString(encoding);
    if (canonical.length < unpadded || !canonical.startsWith(text)) return false;
    return timingSafeEqual(given, expected);
  };
}
