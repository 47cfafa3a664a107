/** The exact bytes of a delivery, as received. A string is taken as its UTF-8 encoding. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/**
 * Request headers: a plain object with lower-case names, as Node's `req.headers` gives them (a value may be a
 * string, an array when the header was repeated, or `undefined`), or a WHATWG `Headers` instance.
 */
export type WebhookHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

/** A signing secret, or several during a rotation (a signature made with any of them verifies). */
export type WebhookSecretValue = string | readonly string[];

/**
 * A getter that resolves the secret lazily, on the first delivery. It may be async. Its result is memoized; a
 * getter that throws, rejects or yields an empty secret makes that delivery fail verification and is called
 * again on the next one.
 */
export type WebhookSecretGetter = () => WebhookSecretValue | PromiseLike<WebhookSecretValue>;

export type WebhookSecret = WebhookSecretValue | WebhookSecretGetter;

/**
 * What `verify` returns for a given secret: `boolean` for a string, a list or a synchronous getter,
 * `Promise<boolean>` for an async getter.
 */
export type VerifyResult<S extends WebhookSecret> = S extends (...args: never[]) => infer R
  ? [R] extends [PromiseLike<unknown>]
    ? Promise<boolean>
    : [R] extends [WebhookSecretValue]
      ? boolean
      : boolean | Promise<boolean>
  : boolean;

/**
 * Checks a delivery's signature over its raw bytes. Never throws: missing, repeated or garbled headers, an
 * unsupported body type, a stale or future timestamp and a failing secret getter all yield `false`.
 */
export type WebhookVerify<Result extends boolean | Promise<boolean> = boolean | Promise<boolean>> = (
  rawBody: RawBody,
  headers: WebhookHeaders,
) => Result;

/** HMAC hash function. */
export type WebhookAlgorithm = "sha256" | "sha1" | "sha512";

/** How the signature is written in the header. */
export type WebhookEncoding = "hex" | "base64" | "base64url";
