import { DefinitionError } from "../errors.js";
import type { RetentionOptions, RetentionPolicy } from "./request-store.js";

export type { RetentionOptions } from "./request-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The one retention default, whatever the store: 7 days, at most 10 000 finished requests, every 10 minutes. */
export const DEFAULT_RETENTION: Readonly<Required<RetentionOptions>> = Object.freeze({
  maxAgeMs: 7 * DAY_MS,
  maxCount: 10_000,
  intervalMs: 10 * 60 * 1000,
});

/** Retention options with the defaults filled in: the store's policy and how often to apply it. */
export interface ResolvedRetention {
  policy: RetentionPolicy;
  intervalMs: number;
}

/**
 * Fills in the defaults and checks the options, refusing with a `DefinitionError` that names the call (`where`)
 * and the option; `false` when retention is off.
 */
export function resolveRetention(
  option: RetentionOptions | false | undefined,
  where: string,
): ResolvedRetention | false {
  if (option === false) return false;
  if (option !== undefined && (typeof option !== "object" || option === null)) {
    throw new DefinitionError(`${where}: \`retention\` must be an object or false.`);
  }
  const resolved = { ...DEFAULT_RETENTION, ...option };
  for (const name of ["maxAgeMs", "maxCount", "intervalMs"] as const) {
    const value = resolved[name];
    const valid =
      typeof value === "number" &&
      value >= 0 &&
      (Number.isSafeInteger(value) || (name === "maxCount" && value === Number.POSITIVE_INFINITY)) &&
      !(name === "intervalMs" && value === 0);
    if (!valid) {
      throw new DefinitionError(
        `${where}: retention.${name} must be a ${name === "intervalMs" ? "positive" : "non-negative"} integer${
          name === "maxCount" ? " or Infinity" : ""
        } (got ${String(value)}); retention: false turns retention off.`,
      );
    }
  }
  const policy: RetentionPolicy = { maxAgeMs: resolved.maxAgeMs };
  if (resolved.maxCount !== Number.POSITIVE_INFINITY) policy.maxCount = resolved.maxCount;
  return { policy, intervalMs: resolved.intervalMs };
}
