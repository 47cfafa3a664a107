import { createSecretKey, type KeyObject } from "node:crypto";
import type { WebhookSecret } from "./types.js";

/** The signing keys, one per secret, made once (an HMAC keyed by a `KeyObject` skips re-encoding the text). */
export type SecretKeys = readonly KeyObject[];

/** A check over the resolved keys and the two arguments of `verify`; passing them avoids a closure per call. */
export type KeyedCheck = (keys: SecretKeys, rawBody: unknown, headers: unknown) => boolean;

export interface SecretSource {
  /** Runs `check` with the resolved keys; answers `false` when they cannot be resolved. */
  run(check: KeyedCheck, rawBody: unknown, headers: unknown): boolean | Promise<boolean>;
}

/** One key per entry of a non-empty list of non-empty strings, or `undefined`. */
function toKeys(value: unknown): SecretKeys | undefined {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  if (!list.every((entry) => typeof entry === "string" && entry.length > 0)) return undefined;
  // createHmac(algorithm, text) keys with the UTF-8 bytes of the text; these keys hold exactly those bytes.
  return Object.freeze(list.map((entry: string) => createSecretKey(Buffer.from(entry, "utf8"))));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** A static secret: checked and turned into keys at construction. */
class StaticSecretSource implements SecretSource {
  constructor(private readonly keys: SecretKeys) {}

  run(check: KeyedCheck, rawBody: unknown, headers: unknown): boolean {
    return check(this.keys, rawBody, headers);
  }
}

/**
 * A getter, called on first use and its keys memoized. Failures are not memoized: a getter that throws, rejects
 * or yields no usable secret makes that check answer `false`, and it is called again next time, so a secret
 * store that was briefly unreachable does not disable the webhook for the life of the process. Concurrent
 * checks share one pending call. Once the getter has been seen to be async, every check returns a Promise.
 */
class LazySecretSource implements SecretSource {
  private keys: SecretKeys | undefined;
  private pending: Promise<SecretKeys | undefined> | undefined;
  private isAsync = false;

  constructor(private readonly getter: () => unknown) {}

  run(check: KeyedCheck, rawBody: unknown, headers: unknown): boolean | Promise<boolean> {
    const keys = this.keys;
    if (keys !== undefined) {
      return this.isAsync ? Promise.resolve(check(keys, rawBody, headers)) : check(keys, rawBody, headers);
    }
    if (this.pending !== undefined) return this.after(this.pending, check, rawBody, headers);
    let result: unknown;
    let thenable: boolean;
    try {
      result = this.getter();
      // Inside the try: reading `then` of what the getter gave runs its code too (an accessor may throw).
      thenable = isThenable(result);
    } catch {
      return this.answer(false);
    }
    if (!thenable) {
      const resolved = toKeys(result);
      if (resolved === undefined) return this.answer(false);
      this.keys = resolved;
      return this.answer(check(resolved, rawBody, headers));
    }
    this.isAsync = true;
    const attempt = Promise.resolve(result).then(toKeys, () => undefined);
    const pending = attempt.then((resolved) => {
      this.pending = undefined;
      if (resolved !== undefined) this.keys = resolved;
      return resolved;
    });
    this.pending = pending;
    return this.after(pending, check, rawBody, headers);
  }

  private answer(value: boolean): boolean | Promise<boolean> {
    return this.isAsync ? Promise.resolve(value) : value;
  }

  private after(
    pending: Promise<SecretKeys | undefined>,
    check: KeyedCheck,
    rawBody: unknown,
    headers: unknown,
  ): Promise<boolean> {
    return pending.then((keys) => (keys === undefined ? false : check(keys, rawBody, headers)));
  }
}

/**
 * Wraps a secret, a list of secrets or a getter. A static secret is checked here, at construction, and throws a
 * `TypeError` naming `owner` (never the secret) when it is empty or not a string.
 */
export function createSecretSource(secret: WebhookSecret, owner: string): SecretSource {
  if (typeof secret === "function") return new LazySecretSource(secret);
  const keys = toKeys(secret);
  if (keys === undefined) {
    throw new TypeError(
      `${owner}: secret must be a non-empty string, a non-empty list of them, or a getter function.`,
    );
  }
  return new StaticSecretSource(keys);
}
