import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withSchemaDefaults } from "./defaults.js";

const schema = z.object({
  title: z.string().default(""),
  tags: z.array(z.string()).default(() => []),
  note: z.string().optional(),
  'we"ird': z.number().default(1),
});

describe("schema defaults of stored states", () => {
  it("fills only absent top-level fields that have a default, leaving the stored ones and the input as they are", () => {
    const stored = { title: "kept" };
    const filled = withSchemaDefaults(schema, stored);
    expect(filled).toEqual({ title: "kept", tags: [], 'we"ird': 1 });
    expect(stored).toEqual({ title: "kept" });
    const complete = { title: "", tags: ["a"], 'we"ird': 2 };
    expect(withSchemaDefaults(schema, complete)).toBe(complete);
    expect(withSchemaDefaults(z.record(z.string(), z.number()), stored)).toBe(stored);
    expect(withSchemaDefaults(undefined, stored)).toBe(stored);
  });
});
