import type { KeyObject } from "node:crypto";
import { parseAlphaSignatureHeader } from "./alpha-signature-header.js";
import { buildVerifier } from "./build-verifier.js";
import { hmac, hmacParts, type SignedPart } from "./hmac.js";
import { rawBodyBytes, signedBody } from "./raw-body.js";
import { headerReader, readHeader } from "./read-header.js";
import type { KeyedCheck } from "./secret-source.js";
import { createSignatureMatcher, type SignatureMatcher } from "./signature-matcher.js";
import { signedPrefix } from "./signed-prefix.js";
import { checkClock, checkTolerance, isFresh, parseTimestamp } from "./timestamp.js";
import type {
  VerifyResult,
  WebhookAlgorithm,
  WebhookEncoding,
  WebhookSecret,
  WebhookVerify,
} from "./types.js";

/** Default replay window of the timestamped formats, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const ALGORITHMS: readonly WebhookAlgorithm[] = ["sha256", "sha1", "sha512"];
const ENCODINGS: readonly WebhookEncoding[] = ["hex", "base64", "base64url"];
const OWNER = "createWebhookVerifier";

interface BaseOptions<S extends WebhookSecret> {
  /** Name of the header that carries the signature; matched case-insensitively. */
  header: string;
  /** The signing secret, a list of secrets (rotation: any may match) or a lazily resolved getter. */
  secret: S;
  /** HMAC hash function. @default "sha256" */
  algorithm?: WebhookAlgorithm;
  /** How the signature is written in the header. @default "hex" */
  encoding?: WebhookEncoding;
  /** The clock, in milliseconds since the epoch; inject one in tests. @default Date.now */
  now?: () => number;
}

/** The header holds one signature of the raw body, optionally behind a prefix such as `sha256=`. */
export interface RawFormatOptions<S extends WebhookSecret = WebhookSecret> extends BaseOptions<S> {
  format: "raw";
  /** Text the header must start with; stripped before comparison. @default "" */
  prefix?: string;
}

/**
 * The header is `t=<timestamp>,v1=<signature>[,v1=...]`, signing `<timestamp>.<rawBody>`; any `v1` may match.
 */
export interface AlphaFormatOptions<S extends WebhookSecret = WebhookSecret> extends BaseOptions<S> {
  format: "alpha";
  /** Largest accepted distance between the signed timestamp and the clock, either way. @default 300 */
  toleranceSeconds?: number;
}

/** What a custom parser extracts from a delivery. */
export interface ParsedSignature {
  /** Candidate signatures, written in the verifier's `encoding`; any one matching verifies. */
  signatures: readonly string[];
  /**
   * Signed timestamp in seconds (decimal digits or an integer), checked against `toleranceSeconds`. When the
   * verifier was given `toleranceSeconds` explicitly, a parse without a timestamp does not verify.
   */
  timestamp?: string | number;
  /** The exact bytes the provider signed, in order. @default the raw body */
  signedPayload?: string | Uint8Array | readonly (string | Uint8Array)[];
}

/** Gives a custom parser the raw body and the other headers (missing or repeated → `undefined`). */
export interface SignatureContext {
  rawBody: Uint8Array;
  header(name: string): string | undefined;
}

/**
 * Reads the signature header of a custom format. Return `null` for a header that is not in the format; a
 * parser that throws is treated the same way.
 */
export type ParseSignature = (
  headerValue: string,
  context: SignatureContext,
) => ParsedSignature | null | undefined;

/** Any other HMAC scheme: `parseSignature` says what was signed and which signatures to compare. */
export interface CustomFormatOptions<S extends WebhookSecret = WebhookSecret> extends BaseOptions<S> {
  format: "custom";
  parseSignature: ParseSignature;
  /** Replay window for parsed timestamps, either way. @default 300 */
  toleranceSeconds?: number;
}

export type WebhookVerifierOptions<S extends WebhookSecret = WebhookSecret> =
  | RawFormatOptions<S>
  | AlphaFormatOptions<S>
  | CustomFormatOptions<S>;

interface Parsed {
  signatures: readonly string[];
  timestamp: number | undefined;
  parts: readonly SignedPart[];
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw new TypeError(`${OWNER}: ${name} must be one of ${allowed.join(", ")}.`);
  return value as T;
}

function rejectOption(options: object, name: string, format: string): void {
  if ((options as Record<string, unknown>)[name] !== undefined) {
    throw new TypeError(`${OWNER}: ${name} does not apply to format "${format}".`);
  }
}

const isPart = (part: unknown): part is SignedPart => typeof part === "string" || part instanceof Uint8Array;

/** Runs the user's parser and checks what it returned; `undefined` when it is not a usable parse. */
function parseCustom(
  parseSignature: ParseSignature,
  timestampRequired: boolean,
  value: string,
  rawBody: Uint8Array,
  headers: unknown,
): Parsed | undefined {
  const parsed = parseSignature(value, { rawBody, header: (name) => readHeader(headers, name) });
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { signatures, timestamp, signedPayload } = parsed;
  if (!Array.isArray(signatures) || signatures.length === 0) return undefined;
  if (!signatures.every((s) => typeof s === "string")) return undefined;
  let seconds: number | undefined;
  if (typeof timestamp === "string") seconds = parseTimestamp(timestamp);
  else if (Number.isSafeInteger(timestamp) && (timestamp as number) >= 0) seconds = timestamp as number;
  if (timestamp !== undefined && seconds === undefined) return undefined;
  if (timestampRequired && seconds === undefined) return undefined;
  const parts: readonly unknown[] =
    signedPayload === undefined ? [rawBody] : Array.isArray(signedPayload) ? signedPayload : [signedPayload];
  if (!parts.every(isPart)) return undefined;
  return { signatures, timestamp: seconds, parts: parts as readonly SignedPart[] };
}

/**
 * Whether `candidates` holds a signature of `parts` under any of the keys. Every key and every candidate is
 * compared, so the time taken does not say which one matched.
 */
function matchesAnyKey(
  keys: Parameters<KeyedCheck>[0],
  algorithm: WebhookAlgorithm,
  parts: readonly SignedPart[],
  candidates: readonly string[],
  matches: SignatureMatcher,
): boolean {
  let matched = false;
  for (const key of keys) {
    const expected = hmacParts(algorithm, key, parts);
    for (const candidate of candidates) if (matches(expected, candidate)) matched = true;
  }
  return matched;
}

/**
 * Builds a webhook verifier for an HMAC signature scheme. The returned `verify(rawBody, headers)` never throws;
 * it returns a Promise only when the secret is an async getter.
 *
 * Throws a `TypeError` at construction for invalid options, including `format: "custom"` without
 * `parseSignature`.
 *
 * @example
 * const verify = createWebhookVerifier({
 *   header: "x-signature", secret: process.env.HOOK_SECRET!, format: "raw", prefix: "sha512=", algorithm: "sha512",
 * });
 * verify(rawBody, req.headers); // true or false
 */
export function createWebhookVerifier<S extends WebhookSecret>(
  options: WebhookVerifierOptions<S>,
): WebhookVerify<VerifyResult<S>> {
  if (typeof options !== "object" || options === null) throw new TypeError(`${OWNER}: options are required.`);
  const { header, format } = options;
  if (typeof header !== "string" || header.length === 0) {
    throw new TypeError(`${OWNER}: header must be a non-empty header name.`);
  }
  const algorithm = oneOf(options.algorithm, ALGORITHMS, "algorithm", "sha256");
  const encoding = oneOf(options.encoding, ENCODINGS, "encoding", "hex");
  const now = checkClock(options.now, OWNER);
  const matches = createSignatureMatcher(algorithm, encoding);
  const read = headerReader(header);

  // Each format's check runs on every delivery: no per-call closures, arrays or concatenated payloads on the
  // raw and alpha paths; the body is fed to the HMAC as received. The keys are walked by index: for…of over the
  // (frozen) key list measured 2–3 % slower per 1 KiB verification.
  let check: KeyedCheck;
  if (format === "raw") {
    rejectOption(options, "toleranceSeconds", format);
    rejectOption(options, "parseSignature", format);
    const prefix = options.prefix ?? "";
    if (typeof prefix !== "string") throw new TypeError(`${OWNER}: prefix must be a string.`);
    check = (keys, rawBody, headers) => {
      const body = signedBody(rawBody);
      const value = read(headers);
      if (body === undefined || value === undefined || !value.startsWith(prefix)) return false;
      let matched = false;
      for (let i = 0; i < keys.length; i++) {
        const expected = hmac(algorithm, keys[i] as KeyObject, "", body);
        if (matches(expected, value, prefix.length, value.length)) matched = true;
      }
      return matched;
    };
  } else if (format === "alpha") {
    rejectOption(options, "prefix", format);
    rejectOption(options, "parseSignature", format);
    const tolerance = checkTolerance(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, OWNER);
    const signedTimestamp = signedPrefix("", ".");
    check = (keys, rawBody, headers) => {
      const body = signedBody(rawBody);
      const value = read(headers);
      if (body === undefined || value === undefined) return false;
      const parsed = parseAlphaSignatureHeader(value);
      if (parsed === undefined) return false;
      const seconds = parseTimestamp(parsed.timestamp);
      if (seconds === undefined || !isFresh(seconds, tolerance, now)) return false;
      const prefix = signedTimestamp(parsed.timestamp);
      let matched = false;
      for (let i = 0; i < keys.length; i++) {
        const expected = hmac(algorithm, keys[i] as KeyObject, prefix, body);
        if (matches(expected, value, parsed.signatureStart, parsed.signatureEnd)) matched = true;
        const more = parsed.more;
        if (more !== undefined) {
          for (let j = 0; j < more.length; j += 2) {
            if (matches(expected, value, more[j] as number, more[j + 1] as number)) matched = true;
          }
        }
      }
      return matched;
    };
  } else if (format === "custom") {
    rejectOption(options, "prefix", format);
    const { parseSignature } = options;
    if (typeof parseSignature !== "function") {
      throw new TypeError(`${OWNER}: format "custom" requires a parseSignature function.`);
    }
    const tolerance = checkTolerance(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, OWNER);
    const timestampRequired = options.toleranceSeconds !== undefined;
    check = (keys, rawBody, headers) => {
      const body = rawBodyBytes(rawBody);
      const value = read(headers);
      if (body === undefined || value === undefined) return false;
      const parsed = parseCustom(parseSignature, timestampRequired, value, body, headers);
      if (parsed === undefined) return false;
      if (parsed.timestamp !== undefined && !isFresh(parsed.timestamp, tolerance, now)) return false;
      return matchesAnyKey(keys, algorithm, parsed.parts, parsed.signatures, matches);
    };
  } else {
    throw new TypeError(`${OWNER}: format must be one of raw, alpha, custom.`);
  }

  return buildVerifier(options.secret, OWNER, check) as WebhookVerify<VerifyResult<S>>;
}
