/** How a signature is written in its header. */
export type SignatureEncoding = "hex" | "base64" | "base64url";

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Decodes a signature, or `undefined` when the text is not canonical in `encoding`. Node's decoders silently
 * skip invalid characters, so the text is validated first and base64 must round-trip.
 */
export function decodeSignature(text: string, encoding: SignatureEncoding): Uint8Array | undefined {
  if (encoding === "hex") return HEX.test(text) ? Buffer.from(text, "hex") : undefined;
  if (!(encoding === "base64" ? BASE64 : BASE64URL).test(text)) return undefined;
  const bytes = Buffer.from(text, encoding);
  return bytes.toString(encoding).replace(/=+$/, "") === text.replace(/=+$/, "") ? bytes : undefined;
}
