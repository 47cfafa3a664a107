import { describe, expect, it } from "vitest";
import { z } from "zod";
import { hasErrorCode } from "../errors.js";
import { defineResourceCollection } from "./define-collection.js";
import { lifecycleSchema } from "./lifecycle-schema.js";

describe("lifecycleSchema", () => {
  const schema = z.object({ ...lifecycleSchema(["queued", "running", "done"]), url: z.string().default("") });

  it("status is a required enum over the given statuses", () => {
    expect(schema.safeParse({}).success).toBe(false);
    const missing = schema.safeParse({});
    expect(missing.error?.issues.map((i) => i.path.join("."))).toEqual(["status"]);
    expect(schema.safeParse({ status: "paused" }).success).toBe(false);
    expect(schema.parse({ status: "running" }).status).toBe("running");
  });

  it("startedAt, completedAt and errorMessage are nullable and default to null", () => {
    expect(schema.parse({ status: "queued" })).toEqual({
      status: "queued",
      startedAt: null,
      completedAt: null,
      errorMessage: null,
      url: "",
    });
    const done = {
      status: "done",
      startedAt: "2026-01-01T00:00:00Z",
      completedAt: null,
      errorMessage: "boom",
      url: "u",
    };
    expect(schema.parse(done)).toEqual(done);
    expect(schema.safeParse({ status: "done", errorMessage: 3 }).success).toBe(false);
  });

  it("works as a collection's stateSchema", () => {
    const jobs = defineResourceCollection({ pattern: "jobs/*", scope: "session", stateSchema: schema });
    expect(jobs.stateSchema.safeParse({ status: "done" }).success).toBe(true);
  });

  it.each([[[]], [[""]], [["a", "a"]], [[1]], ["queued"]])("refuses statuses %j", (statuses) => {
    let caught: unknown;
    try {
      lifecycleSchema(statuses as never);
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, "definition-error")).toBe(true);
    expect((caught as Error).message).toContain(
      "statuses must be a non-empty array of distinct non-empty strings",
    );
  });
});
