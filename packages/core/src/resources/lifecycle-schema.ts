import { z } from "zod";
import { DefinitionError } from "../errors.js";

/** The zod fields {@link lifecycleSchema} returns, to spread into `z.object`. */
export interface LifecycleFields<TStatus extends string> {
  status: z.ZodEnum<{ [K in TStatus]: K }>;
  startedAt: z.ZodDefault<z.ZodNullable<z.ZodString>>;
  completedAt: z.ZodDefault<z.ZodNullable<z.ZodString>>;
  errorMessage: z.ZodDefault<z.ZodNullable<z.ZodString>>;
}

/**
 * A state-schema fragment for resources that move through statuses: a required `status` enum over `statuses`
 * plus `startedAt`, `completedAt` (ISO 8601 strings by convention) and `errorMessage`, each nullable and
 * defaulting to `null`. Spread it into `z.object`.
 * @example
 * const jobs = defineResourceCollection({
 *   pattern: "jobs/*",
 *   scope: "session",
 *   stateSchema: z.object({ ...lifecycleSchema(["queued", "running", "done", "failed"]), url: z.string() }),
 * });
 */
export function lifecycleSchema<const TStatus extends readonly [string, ...string[]]>(
  statuses: TStatus,
): LifecycleFields<TStatus[number]> {
  if (
    !Array.isArray(statuses) ||
    statuses.length === 0 ||
    statuses.some((s) => typeof s !== "string" || s === "") ||
    new Set(statuses).size !== statuses.length
  ) {
    throw new DefinitionError(
      "lifecycleSchema: statuses must be a non-empty array of distinct non-empty strings. " +
        'Pass the statuses in order, e.g. lifecycleSchema(["queued", "running", "done"]).',
      { option: "statuses" },
    );
  }
  return {
    status: z.enum(statuses as readonly TStatus[number][]) as z.ZodEnum<{ [K in TStatus[number]]: K }>,
    startedAt: z.string().nullable().default(null),
    completedAt: z.string().nullable().default(null),
    errorMessage: z.string().nullable().default(null),
  };
}
