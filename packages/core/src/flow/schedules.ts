import { assertKnownKeys, assertOptions, describe, requireBlock } from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";
import { normalizePolicy, POLICY_KEYS } from "./actions.js";
import type { ScheduleDefinition, SchedulePrincipal } from "./flow-types.js";
import { assertPathName } from "./path-segment.js";

const SCHEDULE_KEYS = [
  "cron",
  "timezone",
  "block",
  "input",
  "principal",
  "sessionId",
  "catchUp",
  ...POLICY_KEYS,
];
const PRINCIPAL_KEYS = ["userId", "orgId", "tenantId"];
const CATCH_UP = ["none", "latest"] as const;

function nonEmptyString(where: string, field: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new DefinitionError(`${where}: "${field}" must be a non-empty string, got ${describe(value)}.`, {
      field,
    });
  }
  return value;
}

/** The principal a schedule asserts: a user id always (no resolver vouches for a scheduled run), org and tenant if given. */
function schedulePrincipal(where: string, value: unknown): Readonly<SchedulePrincipal> {
  if (value === undefined) {
    throw new DefinitionError(
      `${where}: "principal" is required ({ userId, orgId?, tenantId? }): a scheduled run has no caller to resolve.`,
      { field: "principal" },
    );
  }
  assertOptions(`${where} principal`, value);
  assertKnownKeys(`${where} principal`, value, PRINCIPAL_KEYS);
  const principal: SchedulePrincipal = { userId: nonEmptyString(where, "principal.userId", value.userId) };
  if (value.orgId !== undefined) principal.orgId = nonEmptyString(where, "principal.orgId", value.orgId);
  if (value.tenantId !== undefined)
    principal.tenantId = nonEmptyString(where, "principal.tenantId", value.tenantId);
  return Object.freeze(principal);
}

/**
 * Checks a flow's `schedules` map: names, blocks, principals, the catch-up mode. Whether the cron expression and the
 * time zone parse is the engine's startup check (it owns the cron library).
 */
export function normalizeSchedules(
  flowKind: string,
  value: unknown,
): Readonly<Record<string, ScheduleDefinition>> {
  if (value === undefined) return Object.freeze({});
  const where = `Flow "${flowKind}"`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DefinitionError(
      `${where}: "schedules" must be an object of name → { cron, block, principal }, got ${describe(value)}.`,
    );
  }
  // Built from entries: an assignment would treat the name `__proto__` as the prototype.
  const schedules: Array<[string, ScheduleDefinition]> = [];
  for (const [name, config] of Object.entries(value)) {
    assertPathName(where, "schedule name", name);
    const at = `${where} schedule "${name}"`;
    assertOptions(at, config);
    assertKnownKeys(at, config, SCHEDULE_KEYS);
    const catchUp = config.catchUp ?? "latest";
    if (!CATCH_UP.includes(catchUp as never)) {
      throw new DefinitionError(
        `${at}: "catchUp" must be "none" or "latest", got ${JSON.stringify(catchUp)}.`,
        {
          field: "catchUp",
        },
      );
    }
    const sessionId =
      config.sessionId === undefined ? undefined : nonEmptyString(at, "sessionId", config.sessionId);
    schedules.push([
      name,
      Object.freeze({
        name,
        cron: nonEmptyString(at, "cron", config.cron).trim(),
        timezone: config.timezone === undefined ? "UTC" : nonEmptyString(at, "timezone", config.timezone),
        block: requireBlock(at, "block", config.block),
        input: config.input,
        principal: schedulePrincipal(at, config.principal),
        sessionId,
        catchUp: catchUp as ScheduleDefinition["catchUp"],
        ...normalizePolicy(at, config),
      }),
    ]);
  }
  return Object.freeze(Object.fromEntries(schedules));
}
