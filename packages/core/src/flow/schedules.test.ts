import { describe, expect, it } from "vitest";
import { z } from "zod";
import { handler } from "../blocks/handler.js";
import { isFlowError } from "../errors.js";
import { defineResourceCollection } from "../resources/index.js";
import { defineFlow } from "./define-flow.js";

const digest = handler({ name: "digest", execute: () => "sent" });

function refusal(schedules: unknown): string {
  try {
    defineFlow({ kind: "reports", schedules } as never);
  } catch (error) {
    expect(isFlowError(error) && error.code).toBe("definition-error");
    return (error as Error).message;
  }
  throw new Error("defineFlow accepted it");
}

describe("a flow's schedules", () => {
  it("are normalized and frozen, with their defaults: UTC, catch-up latest, no session, the action policy's defaults", () => {
    const flow = defineFlow({
      kind: "reports",
      schedules: {
        nightly: { cron: " 0 3 * * * ", block: digest, principal: { userId: "ops" } },
        weekly: {
          cron: "0 7 * * 1",
          timezone: "Europe/Berlin",
          block: digest,
          input: { kind: "weekly" },
          principal: { userId: "ops", orgId: "acme", tenantId: "t1" },
          sessionId: "ops-reports",
          catchUp: "none",
          durable: true,
        },
      },
    });
    expect(flow.schedules.nightly).toEqual({
      name: "nightly",
      cron: "0 3 * * *",
      timezone: "UTC",
      block: digest,
      input: undefined,
      principal: { userId: "ops" },
      sessionId: undefined,
      catchUp: "latest",
      durable: false,
      tokenBudget: undefined,
      onCompleted: undefined,
      onErrored: undefined,
    });
    expect(flow.schedules.weekly).toMatchObject({
      timezone: "Europe/Berlin",
      input: { kind: "weekly" },
      principal: { userId: "ops", orgId: "acme", tenantId: "t1" },
      sessionId: "ops-reports",
      catchUp: "none",
      durable: true,
    });
    expect(Object.isFrozen(flow.schedules)).toBe(true);
    expect(Object.isFrozen(flow.schedules.nightly)).toBe(true);
    expect(Object.isFrozen(flow.schedules.nightly!.principal)).toBe(true);
    expect(defineFlow({ kind: "plain" }).schedules).toEqual({});
  });

  it.each([
    [
      "a block that is not a block",
      { x: { cron: "* * * * *", block: "digest", principal: { userId: "ops" } } },
      /schedule "x": "block" must be a block/,
    ],
    [
      "a missing block",
      { x: { cron: "* * * * *", principal: { userId: "ops" } } },
      /"block" must be a block/,
    ],
    [
      "a missing principal",
      { x: { cron: "* * * * *", block: digest } },
      /schedule "x": "principal" is required/,
    ],
    [
      "a principal without a user",
      { x: { cron: "* * * * *", block: digest, principal: { orgId: "acme" } } },
      /"principal.userId" must be a non-empty string/,
    ],
    [
      "an empty user id",
      { x: { cron: "* * * * *", block: digest, principal: { userId: "" } } },
      /"principal.userId"/,
    ],
    [
      "an unknown principal field",
      { x: { cron: "* * * * *", block: digest, principal: { userId: "a", role: "admin" } } },
      /"role" is not an option/,
    ],
    [
      "a missing cron",
      { x: { block: digest, principal: { userId: "ops" } } },
      /"cron" must be a non-empty string/,
    ],
    [
      "a catch-up mode that does not exist",
      { x: { cron: "* * * * *", block: digest, principal: { userId: "ops" }, catchUp: "all" } },
      /"catchUp" must be "none" or "latest"/,
    ],
    [
      "a timezone that is not a string",
      { x: { cron: "* * * * *", block: digest, principal: { userId: "ops" }, timezone: 1 } },
      /"timezone" must be a non-empty string/,
    ],
    [
      "a misspelt option",
      { x: { cron: "* * * * *", block: digest, principal: { userId: "ops" }, timeZone: "UTC" } },
      /"timeZone" is not an option/,
    ],
    [
      "a name that is not URL-safe",
      { "every day": { cron: "* * * * *", block: digest, principal: { userId: "ops" } } },
      /schedule name must be/,
    ],
    ["schedules that are not an object", [], /"schedules" must be an object/],
  ])("refuse %s", (_, schedules, message) => {
    expect(refusal(schedules)).toMatch(message);
  });

  it("count as roots for the flow's resource rules: a schedule's block declaring a clashing accessor is refused", () => {
    const a = defineResourceCollection({ pattern: "a/*", scope: "session", stateSchema: z.object({}) });
    const b = defineResourceCollection({ pattern: "b/*", scope: "session", stateSchema: z.object({}) });
    const usesA = handler({ name: "usesA", resources: { items: a }, execute: () => null });
    const usesB = handler({ name: "usesB", resources: { items: b }, execute: () => null });
    expect(() =>
      defineFlow({
        kind: "reports",
        actions: { run: usesA },
        schedules: { nightly: { cron: "0 3 * * *", block: usesB, principal: { userId: "ops" } } },
      }),
    ).toThrow(/items/);
  });

  it("reserve the path word schedules: no flow may be named after it", () => {
    expect(() => defineFlow({ kind: "schedules" })).toThrow(/reserved path word/);
  });
});
