import { createSecretSource, type KeyedCheck } from "./secret-source.js";
import type { WebhookSecret } from "./types.js";

/** What every verifier does around its format's check. */
export type Verify = (rawBody: unknown, headers: unknown) => boolean | Promise<boolean>;

/**
 * Wraps a format's check with the secret (resolved once into keys, or lazily through a getter) and the rule
 * that `verify` never throws: attacker-controlled input must never surface as an exception, and the transport
 * would map one to 401 anyway. Nothing is allocated per call on the way to `check` for a static secret.
 */
export function buildVerifier(secret: WebhookSecret, owner: string, check: KeyedCheck): Verify {
  const source = createSecretSource(secret, owner);
  const guarded: KeyedCheck = (keys, rawBody, headers) => {
    try {
      return check(keys, rawBody, headers);
    } catch {
      return false;
    }
  };
  return (rawBody, headers) => source.run(guarded, rawBody, headers);
}
