import type { WebhookSecret } from "./types.js";

type Secrets = readonly string[];

/** Runs a check with the resolved secrets; answers `false` when they cannot be resolved. */
export type SecretSource = (check: (secrets: Secrets) => boolean) => boolean | Promise<boolean>;

/** A non-empty list of non-empty strings, or `undefined`. */
function normalize(value: unknown): Secrets | undefined {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  if (!list.every((entry) => typeof entry === "string" && entry.length > 0)) return undefined;
  return Object.freeze([...list]);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * Wraps a secret, a list of secrets or a getter. A static secret is checked here, at construction; a getter is
 * called on first use and its result memoized. Failures are not memoized: a getter that throws, rejects or
 * yields no usable secret makes that check answer `false`, and it is called again next time, so a secret store
 * that was briefly unreachable does not disable the webhook for the life of the process. Concurrent checks
 * share one pending call. Once a getter has been seen to be async, every check returns a Promise.
 */
export function createSecretSource(secret: WebhookSecret, owner: string): SecretSource {
  if (typeof secret !== "function") {
    const secrets = normalize(secret);
    if (secrets === undefined) {
      throw new TypeError(
        `${owner}: secret must be a non-empty string, a non-empty list of them, or a getter function.`,
      );
    }
    return (check) => check(secrets);
  }
  const getter = secret;
  let resolved: Secrets | undefined;
  let pending: Promise<Secrets | undefined> | undefined;
  let isAsync = false;

  return (check) => {
    if (resolved !== undefined) return isAsync ? Promise.resolve(check(resolved)) : check(resolved);
    if (pending !== undefined)
      return pending.then((secrets) => (secrets === undefined ? false : check(secrets)));
    let result: unknown;
    try {
      result = getter();
    } catch {
      return isAsync ? Promise.resolve(false) : false;
    }
    if (!isThenable(result)) {
      const secrets = normalize(result);
      if (secrets === undefined) return isAsync ? Promise.resolve(false) : false;
      resolved = secrets;
      return isAsync ? Promise.resolve(check(secrets)) : check(secrets);
    }
    isAsync = true;
    const attempt: Promise<Secrets | undefined> = Promise.resolve(result).then(normalize, () => undefined);
    pending = attempt.then((secrets) => {
      pending = undefined;
      if (secrets !== undefined) resolved = secrets;
      return secrets;
    });
    return pending.then((secrets) => (secrets === undefined ? false : check(secrets)));
  };
}
