import { type JWTPayload, type JWTVerifyOptions, jwtVerify } from "jose";

const OWNER = "createHs256JwtVerifier";
/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash output. */
const MIN_KEY_BYTES = 32;

/** The verified claims of a token. */
export type JwtPayload = JWTPayload;

export interface Hs256JwtVerifierOptions {
  /**
   * The shared secret (a string is taken as UTF-8), at least 32 bytes; or several during a rotation (a token
   * signed with any of them verifies).
   */
  secret: string | Uint8Array | readonly (string | Uint8Array)[];
  /** Required `iss` claim (any of a list). @default no issuer check */
  issuer?: string | readonly string[];
  /** Required `aud` claim (any of a list). @default no audience check */
  audience?: string | readonly string[];
  /** Leeway for `exp` and `nbf`, in seconds. @default 0 */
  clockSkewSeconds?: number;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

/** Verifies a compact JWT; resolves to its payload, or `null` for any invalid token. Never rejects. */
export type Hs256JwtVerify = (token: unknown) => Promise<JwtPayload | null>;

function toKey(secret: unknown): Uint8Array {
  const key = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  if (!(key instanceof Uint8Array) || key.byteLength < MIN_KEY_BYTES) {
    throw new TypeError(
      `${OWNER}: each secret must be a string or bytes of at least ${MIN_KEY_BYTES} bytes.`,
    );
  }
  return key;
}

/** Three dot-separated parts of unpadded base64url, nothing else. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Builds an HS256 JWT verifier on `jose`, for use inside a principal resolver. Only HS256 is accepted: `none`
 * and every other algorithm, a bad signature, an expired token, a token not yet valid beyond the skew, a wrong
 * issuer or audience, and malformed input all resolve to `null`. Invalid options throw a `TypeError` here.
 *
 * @example
 * const verifyJwt = createHs256JwtVerifier({ secret: process.env.JWT_SECRET!, issuer: "https://auth.example.com" });
 * const payload = await verifyJwt(extractBearerToken(req.headers.authorization)); // claims or null
 */
export function createHs256JwtVerifier(options: Hs256JwtVerifierOptions): Hs256JwtVerify {
  if (typeof options !== "object" || options === null) throw new TypeError(`${OWNER}: options are required.`);
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  if (secrets.length === 0) throw new TypeError(`${OWNER}: secret must not be an empty list.`);
  const keys = secrets.map(toKey);
  const skew = options.clockSkewSeconds ?? 0;
  if (typeof skew !== "number" || !Number.isFinite(skew) || skew < 0) {
    throw new TypeError(`${OWNER}: clockSkewSeconds must be a finite number >= 0.`);
  }
  // Looked up at each call, not kept: a clock faked after construction (fake timers) is the one read.
  const now = options.now ?? (() => Date.now());
  if (typeof now !== "function")
    throw new TypeError(`${OWNER}: now must be a function returning milliseconds.`);
  for (const [name, value] of [
    ["issuer", options.issuer],
    ["audience", options.audience],
  ] as const) {
    const list = typeof value === "string" ? [value] : value;
    if (
      list !== undefined &&
      (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === "string" && v))
    ) {
      throw new TypeError(`${OWNER}: ${name} must be a non-empty string or a non-empty list of them.`);
    }
  }
  const base: JWTVerifyOptions = {
    algorithms: ["HS256"],
    clockTolerance: skew,
    ...(options.issuer === undefined ? {} : { issuer: [options.issuer].flat() }),
    ...(options.audience === undefined ? {} : { audience: [options.audience].flat() }),
  };

  return async (token) => {
    // A compact JWS in canonical base64url only: jose's decoder would also take padding, whitespace and the
    // `+/` alphabet, so one signature would have many accepted spellings (defeating a denylist keyed on the token).
    if (typeof token !== "string" || !COMPACT_JWS.test(token)) return null;
    let currentDate: Date;
    try {
      currentDate = new Date(now());
    } catch {
      return null; // an injected clock that fails verifies nothing, and never throws
    }
    if (Number.isNaN(currentDate.getTime())) return null;
    for (const key of keys) {
      try {
        const { payload } = await jwtVerify(token, key, { ...base, currentDate });
        return payload;
      } catch {
        // Wrong key, bad claims or malformed token: try the next key; all failures end as null.
      }
    }
    return null;
  };
}
