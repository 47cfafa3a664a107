import { createHmac, timingSafeEqual } from "node:crypto";
import { decodeSignature, type SignatureEncoding } from "./signature-encoding.js";

const OWNER = "createHmacVerifier";
const ALGORITHMS = ["sha256", "sha1", "sha512"] as const;
const ENCODINGS = ["hex", "base64", "base64url"] as const;
const DIGITS = /^\d{1,15}$/;

export type HmacAlgorithm = (typeof ALGORITHMS)[number];

export interface HmacVerifierOptions {
  /** The shared secret, or several during a rotation (a signature made with any of them verifies). */
  secret: string | readonly string[];
  /**
   * `"alpha"`: the header is `t=<timestamp>,v1=<signature>[,v1=...]`, signing `<timestamp>.<rawBody>`.
   * `"raw"`: the header is one signature of the raw body, behind an optional `prefix`.
   */
  format: "alpha" | "raw";
  /** Raw format only: text the header must start with, stripped before comparison, e.g. `"sha256="`. @default "" */
  prefix?: string;
  /** Alpha format only: largest accepted distance between timestamp and clock, either way. @default 300 */
  toleranceSeconds?: number;
  /** HMAC hash function. @default "sha256" */
  algorithm?: HmacAlgorithm;
  /** How the signature is written. @default "hex" */
  encoding?: SignatureEncoding;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

/** Checks a signature header over the exact request bytes; never throws. */
export type HmacVerify = (
  rawBody: string | Uint8Array | ArrayBuffer,
  signatureHeader: string | readonly string[] | null | undefined,
) => boolean;

interface Parsed {
  signatures: readonly string[];
  /** Bytes signed before the body. */
  preamble: string;
}

function parseAlpha(value: string): (Parsed & { timestamp: number }) | undefined {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const rawItem of value.split(",")) {
    const item = rawItem.trim();
    const eq = item.indexOf("=");
    if (eq <= 0) return undefined;
    const key = item.slice(0, eq);
    if (key === "t") {
      if (timestamp !== undefined) return undefined;
      timestamp = item.slice(eq + 1);
    } else if (key === "v1") {
      signatures.push(item.slice(eq + 1));
    }
  }
  if (timestamp === undefined || !DIGITS.test(timestamp) || signatures.length === 0) return undefined;
  return { signatures, preamble: `${timestamp}.`, timestamp: Number(timestamp) };
}

function toBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === "string") return Buffer.from(rawBody, "utf8");
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  return undefined;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw new TypeError(`${OWNER}: ${name} must be one of ${allowed.join(", ")}.`);
  return value as T;
}

/**
 * Builds a verifier for an HMAC-signed request, for use inside a principal resolver (a service calling yours
 * with a shared secret). Invalid options throw a `TypeError` here; the returned function never throws.
 *
 * @example
 * const verify = createHmacVerifier({ secret: process.env.PARTNER_SECRET!, format: "raw", prefix: "sha256=" });
 * if (!verify(ctx.rawBody ?? "", ctx.request?.headers["x-signature"])) throw new PrincipalResolutionError("bad signature");
 */
export function createHmacVerifier(options: HmacVerifierOptions): HmacVerify {
  if (typeof options !== "object" || options === null) throw new TypeError(`${OWNER}: options are required.`);
  const secretList = typeof options.secret === "string" ? [options.secret] : options.secret;
  if (
    !Array.isArray(secretList) ||
    secretList.length === 0 ||
    !secretList.every((s) => typeof s === "string" && s)
  ) {
    throw new TypeError(`${OWNER}: secret must be a non-empty string or a non-empty list of them.`);
  }
  const secrets: readonly string[] = [...secretList];
  const algorithm = oneOf(options.algorithm, ALGORITHMS, "algorithm", "sha256");
  const encoding = oneOf(options.encoding, ENCODINGS, "encoding", "hex");
  // Looked up at each call, not kept: a clock faked after construction (fake timers) is the one read.
  const now = options.now ?? (() => Date.now());
  if (typeof now !== "function")
    throw new TypeError(`${OWNER}: now must be a function returning milliseconds.`);

  let parse: (value: string) => Parsed | undefined;
  if (options.format === "alpha") {
    if (options.prefix !== undefined) throw new TypeError(`${OWNER}: prefix applies to the raw format only.`);
    const tolerance = options.toleranceSeconds ?? 300;
    if (typeof tolerance !== "number" || Number.isNaN(tolerance) || tolerance < 0) {
      throw new TypeError(`${OWNER}: toleranceSeconds must be a number >= 0 (Infinity disables the check).`);
    }
    parse = (value) => {
      const parsed = parseAlpha(value);
      if (parsed === undefined) return undefined;
      const nowMs = now();
      if (typeof nowMs !== "number" || !Number.isFinite(nowMs)) return undefined;
      // Stale and future timestamps alike: a pre-signed request must not outlive the window.
      return Math.abs(Math.floor(nowMs / 1000) - parsed.timestamp) <= tolerance ? parsed : undefined;
    };
  } else if (options.format === "raw") {
    if (options.toleranceSeconds !== undefined) {
      throw new TypeError(`${OWNER}: toleranceSeconds applies to the alpha format only.`);
    }
    const prefix = options.prefix ?? "";
    if (typeof prefix !== "string") throw new TypeError(`${OWNER}: prefix must be a string.`);
    parse = (value) =>
      value.startsWith(prefix) ? { signatures: [value.slice(prefix.length)], preamble: "" } : undefined;
  } else {
    throw new TypeError(`${OWNER}: format must be "alpha" or "raw".`);
  }

  return (rawBody, signatureHeader) => {
    try {
      const body = toBytes(rawBody);
      if (body === undefined || typeof signatureHeader !== "string") return false;
      const parsed = parse(signatureHeader);
      if (parsed === undefined) return false;
      const candidates = parsed.signatures.map((s) => decodeSignature(s, encoding));
      let matched = false;
      for (const secret of secrets) {
        const expected = createHmac(algorithm, secret).update(parsed.preamble).update(body).digest();
        for (const given of candidates) {
          // timingSafeEqual needs equal lengths; the digest length is public, so checking it first leaks nothing.
          if (given !== undefined && given.length === expected.length && timingSafeEqual(given, expected)) {
            matched = true;
          }
        }
      }
      return matched;
    } catch {
      return false;
    }
  };
}
