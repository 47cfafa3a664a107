import { hasErrorCode } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkCrossFlowSchemas, type SchemaFlow } from "./cross-flow-schemas.js";

function flow(id: string, user?: z.ZodType, org?: z.ZodType, isolate: Partial<SchemaFlow> = {}): SchemaFlow {
  return {
    id,
    isolateUserState: false,
    isolateOrgState: false,
    user: { stateSchema: user },
    org: { stateSchema: org },
    ...isolate,
  };
}

describe("cross-flow schema compatibility", () => {
  it("identical user/org schemas merge silently", () => {
    const schema = () =>
      z.object({ plan: z.enum(["free", "pro"]).default("free"), seen: z.number().default(0) });
    const warnings: string[] = [];
    expect(
      checkCrossFlowSchemas([flow("a", schema(), schema()), flow("b", schema(), schema())], {
        warn: (m) => warnings.push(m),
      }),
    ).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("an extension with extra optional fields merges with a warning", () => {
    const warnings: string[] = [];
    const result = checkCrossFlowSchemas(
      [
        flow("a", z.object({ plan: z.string() })),
        flow("b", z.object({ plan: z.string(), theme: z.string().optional(), n: z.number().default(1) })),
      ],
      { warn: (m) => warnings.push(m) },
    );
    expect(result).toHaveLength(2);
    expect(warnings).toEqual(result);
    expect(warnings[0]).toMatch(/"b".*"a".*"theme"/);
  });

  it("the same field with another type throws CrossFlowSchemaConflictError naming the field and both flows", () => {
    let error: unknown;
    try {
      checkCrossFlowSchemas([
        flow("a", z.object({ plan: z.string() })),
        flow("b", undefined, undefined),
        flow("c", z.object({ plan: z.number() })),
      ]);
    } catch (e) {
      error = e;
    }
    expect(hasErrorCode(error, "cross-flow-schema-conflict")).toBe(true);
    expect(error).toMatchObject({
      name: "CrossFlowSchemaConflictError",
      scope: "user",
      field: "plan",
      flows: ["a", "c"],
    });
    expect((error as Error).message).toMatch(/"a".*"c".*"plan"/);
  });

  it("org schemas are checked like user schemas", () => {
    expect(() =>
      checkCrossFlowSchemas([
        flow("a", undefined, z.object({ seats: z.number() })),
        flow("b", undefined, z.object({ seats: z.string() })),
      ]),
    ).toThrow(/org state field "seats"/);
  });

  it("a field one flow requires and the other lacks is a conflict", () => {
    expect(() =>
      checkCrossFlowSchemas([
        flow("a", z.object({ plan: z.string() })),
        flow("b", z.object({ other: z.string().optional() })),
      ]),
    ).toThrow('Flows "a" and "b" disagree on user state field "plan": required in "a" but absent in "b".');
  });

  it("a nested field keeps its type whatever its name, title and default included", () => {
    for (const name of ["title", "description", "default", "examples", "name"]) {
      expect(
        () =>
          checkCrossFlowSchemas([
            flow("a", z.object({ profile: z.object({ [name]: z.string() }).optional() })),
            flow("b", z.object({ profile: z.object({ [name]: z.number() }).optional() })),
          ]),
        name,
      ).toThrow(`user state field "profile.${name}" with different types`);
    }
    // A title or default on a nested field is still not its type.
    expect(
      checkCrossFlowSchemas([
        flow("a", z.object({ profile: z.object({ title: z.string().default("x") }).optional() })),
        flow(
          "b",
          z.object({ profile: z.object({ title: z.string().default("y").describe("t") }).optional() }),
        ),
      ]),
    ).toEqual([]);
  });

  it("schemas that are objects under a transform, a refinement or an intersection are checked like plain ones", () => {
    const plain = flow("a", z.object({ plan: z.string() }));
    for (const schema of [
      z.object({ plan: z.number() }).transform((state) => state),
      z.object({ plan: z.number() }).refine(() => true),
      z.intersection(z.object({ plan: z.number() }), z.object({ seats: z.number().optional() })),
    ]) {
      expect(() => checkCrossFlowSchemas([plain, flow("b", schema)])).toThrow(
        'Flows "a" and "b" declare user state field "plan" with different types',
      );
    }
  });

  it("the same values in another order are the same type (enums, unions)", () => {
    expect(
      checkCrossFlowSchemas([
        flow("a", z.object({ tier: z.enum(["a", "b"]), id: z.union([z.string(), z.number()]) })),
        flow("b", z.object({ tier: z.enum(["b", "a"]), id: z.union([z.number(), z.string()]) })),
      ]),
    ).toEqual([]);
    expect(() =>
      checkCrossFlowSchemas([
        flow("a", z.object({ tier: z.enum(["a", "b"]) })),
        flow("b", z.object({ tier: z.enum(["a", "c"]) })),
      ]),
    ).toThrow(/field "tier"/);
  });

  it("nested objects are compared field by field: an added optional field warns, a required one or another type conflicts", () => {
    const warnings = checkCrossFlowSchemas([
      flow(
        "a",
        z.object({ prefs: z.object({ theme: z.string() }), tags: z.array(z.object({ k: z.string() })) }),
      ),
      flow(
        "b",
        z.object({
          prefs: z.object({ theme: z.string(), font: z.string().optional() }),
          tags: z.array(z.object({ k: z.string(), note: z.string().optional() })),
        }),
      ),
    ]);
    expect(warnings).toEqual([
      'Flow "b" extends the user state of flow "a" with optional field "prefs.font".',
      'Flow "b" extends the user state of flow "a" with optional field "tags[].note".',
    ]);
    expect(() =>
      checkCrossFlowSchemas([
        flow("a", z.object({ prefs: z.object({ theme: z.string() }) })),
        flow("b", z.object({ prefs: z.object({ theme: z.string(), font: z.string() }) })),
      ]),
    ).toThrow(
      'Flows "a" and "b" disagree on user state field "prefs.font": required in "b" but absent in "a".',
    );
    expect(() =>
      checkCrossFlowSchemas([
        flow("a", z.object({ prefs: z.object({ theme: z.string() }) })),
        flow("b", z.object({ prefs: z.object({ theme: z.boolean() }) })),
      ]),
    ).toThrow(/field "prefs\.theme" with different types/);
  });

  it("a state schema with no named fields (a record) is left out of the check, with a warning", () => {
    const warnings = checkCrossFlowSchemas([
      flow("a", z.object({ plan: z.string() })),
      flow("b", z.record(z.string(), z.number())),
    ]);
    expect(warnings).toEqual([
      'Flow "b": its user state schema has no fields to compare with other flows\' (it is not an object schema); the cross-flow check skipped it.',
    ]);
  });

  it("flows with isolateUserState / isolateOrgState are excluded from that scope's check", () => {
    const conflicting = [
      flow("a", z.object({ plan: z.string() }), z.object({ k: z.string() })),
      flow("b", z.object({ plan: z.number() }), z.object({ k: z.string() }), { isolateUserState: true }),
    ];
    expect(checkCrossFlowSchemas(conflicting)).toEqual([]);
    expect(() =>
      checkCrossFlowSchemas([
        flow("a", undefined, z.object({ k: z.string() })),
        flow("b", undefined, z.object({ k: z.number() }), { isolateUserState: true }),
      ]),
    ).toThrow(/"k"/);
  });

  it("defaults and descriptions are not part of a field's type", () => {
    expect(
      checkCrossFlowSchemas([
        flow("a", z.object({ n: z.number().default(0) })),
        flow("b", z.object({ n: z.number().default(5).describe("count") })),
      ]),
    ).toEqual([]);
  });

  it("the check has no side effects: a registry running it before adding a flow stays unchanged when it throws", () => {
    const registry = [flow("a", z.object({ plan: z.string() }))];
    const before = [...registry];
    expect(() => checkCrossFlowSchemas([...registry, flow("b", z.object({ plan: z.boolean() }))])).toThrow();
    expect(registry).toEqual(before);
  });
});
