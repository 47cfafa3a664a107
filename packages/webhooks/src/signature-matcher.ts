import { timingSafeEqual } from "node:crypto";
import type { WebhookAlgorithm, WebhookEncoding } from "./types.js";

/**
 * Whether a candidate signature, as written in the header, is the expected digest. The candidate is
 * `text.slice(start, end)` (by default all of `text`), read in place: a header's signature is never sliced out
 * (characters of a sliced string cost more to read one by one than the slice saves).
 */
export type SignatureMatcher = (expected: Uint8Array, text: string, start?: number, end?: number) => boolean;

const DIGEST_BYTES: Readonly<Record<WebhookAlgorithm, number>> = { sha1: 20, sha256: 32, sha512: 64 };
const PAD = 61; // "="

/** The value of each ASCII character in a base64 alphabet, -1 for characters outside it. */
function alphabet(sixtySecond: string, sixtyThird: string): Int8Array {
  const table = new Int8Array(128).fill(-1);
  const characters = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789${sixtySecond}${sixtyThird}`;
  for (let value = 0; value < 64; value++) table[characters.charCodeAt(value)] = value;
  return table;
}

const ALPHABETS = { base64: alphabet("+", "/"), base64url: alphabet("-", "_") } as const;

/** The value of each ASCII hex digit (either case), -1 for other characters. */
const HEX_VALUES = (() => {
  const table = new Int8Array(128).fill(-1);
  const digits = "0123456789abcdef";
  for (let value = 0; value < 16; value++) {
    table[digits.charCodeAt(value)] = value;
    table[digits.toUpperCase().charCodeAt(value)] = value;
  }
  return table;
})();

const hexValue = (code: number) => (code < 128 ? (HEX_VALUES[code] as number) : -1);

/**
 * Decodes the `into.length * 2` hex digits of `text` from `start` into `into`; `false` at the first character
 * that is not one. In JavaScript rather than `Buffer#write`: Node's hex decoder reads each character's low byte
 * only (U+0130 "İ" decodes as "0"), and the native call costs more than the 64 lookups of a SHA-256 signature.
 */
function decodeHex(text: string, start: number, into: Uint8Array): boolean {
  for (let i = 0, at = start; i < into.length; i++, at += 2) {
    // A bad digit is -1, so the byte is negative when either digit is bad.
    const byte = (hexValue(text.charCodeAt(at)) << 4) | hexValue(text.charCodeAt(at + 1));
    if (byte < 0) return false;
    into[i] = byte;
  }
  return true;
}

/**
 * Builds the comparison for one algorithm and encoding. The digest length is known up front, so a candidate
 * of any other length is refused before it is decoded, and a candidate of the right length is decoded into a
 * buffer owned by the matcher (decoding and comparing run back to back, with no callback in between, so the
 * buffer is never shared by two checks). The comparison itself is `timingSafeEqual` on equal-length bytes.
 *
 * Decoding is strict, so that two different strings never decode to the same accepted signature. Hex must be
 * whole bytes (either case), every character an ASCII hex digit. Base64 and base64url must be the canonical spelling of the bytes, with optional `=` padding
 * (up to two): Node's decoders skip characters outside the alphabet, accept both alphabets and ignore the spare
 * bits of the last character, so the text is checked against its own alphabet and the spare bits must be zero.
 */
export function createSignatureMatcher(
  algorithm: WebhookAlgorithm,
  encoding: WebhookEncoding,
): SignatureMatcher {
  const bytes = DIGEST_BYTES[algorithm];
  const given = Buffer.alloc(bytes);
  if (encoding === "hex") {
    const length = bytes * 2;
    return (expected, text, start = 0, end = text.length) =>
      end - start === length && decodeHex(text, start, given) && timingSafeEqual(given, expected);
  }
  const values = ALPHABETS[encoding];
  // 6 bits per character: the unpadded spelling has 4 characters per 3 bytes, rounded up, and the last
  // character carries 2 or 4 bits beyond the data (none when the length is a multiple of 3).
  const unpadded = Math.ceil((bytes * 4) / 3);
  const spareMask = (1 << (unpadded * 6 - bytes * 8)) - 1;
  return (expected, text, start = 0, end = text.length) => {
    const padding = end - start - unpadded;
    if (padding < 0 || padding > 2) return false;
    for (let i = start + unpadded; i < end; i++) if (text.charCodeAt(i) !== PAD) return false;
    let value = 0;
    for (let i = start; i < start + unpadded; i++) {
      const code = text.charCodeAt(i);
      value = code < 128 ? (values[code] as number) : -1;
      if (value < 0) return false;
    }
    if ((value & spareMask) !== 0) return false;
    // Node decodes whole strings only; the text was checked above, so this slice (if any) is of valid base64.
    const candidate = start === 0 && end === text.length ? text : text.slice(start, end);
    return given.write(candidate, 0, bytes, encoding) === bytes && timingSafeEqual(given, expected);
  };
}
