import type { WebhookEncoding } from "./types.js";

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Decodes a signature written in `encoding`, or `undefined` when the text is not canonical in that encoding.
 * Node's decoders silently skip invalid characters, so the text is validated first and, for base64, must
 * round-trip: two different strings never decode to the same accepted signature.
 */
export function decodeSignature(text: string, encoding: WebhookEncoding): Uint8Array | undefined {
  if (encoding === "hex") return HEX.test(text) ? Buffer.from(text, "hex") : undefined;
  if (!(encoding === "base64" ? BASE64 : BASE64URL).test(text)) return undefined;
  const bytes = Buffer.from(text, encoding);
  const unpadded = text.replace(/=+$/, "");
  return bytes.toString(encoding).replace(/=+$/, "") === unpadded ? bytes : undefined;
}
