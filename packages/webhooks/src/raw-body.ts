/**
 * The bytes of a raw body, or `undefined` for a value that is not a body (the verifier then answers `false`
 * rather than signing something other than what the provider sent).
 */
export function rawBodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === "string") return Buffer.from(rawBody, "utf8");
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  return undefined;
}
