// RFC 6750 §2.1: "Bearer" 1*SP b64token. The scheme is case-insensitive (RFC 9110 §11.1).
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, or `null` for anything else: a missing header, another
 * scheme, an empty or malformed token, or a header given as an array (repeated).
 *
 * @example
 * extractBearerToken(request.headers.authorization); // "eyJhbGciOi..." or null
 */
export function extractBearerToken(header: string | readonly string[] | null | undefined): string | null {
  if (typeof header !== "string") return null;
  return BEARER.exec(header.trim())?.[1] ?? null;
}
