import { describe, expect, it } from "vitest";
import { z } from "zod";
import { handler } from "../blocks/handler.js";
import { definitionError } from "../blocks/testing/definition-error.js";
import { defineExternalCollection, defineResource, defineResourceCollection } from "../resources/index.js";
import { defineFlow } from "./define-flow.js";

const uses = (name: string, resources: Record<string, unknown>) =>
  handler({ name, resources: resources as never, execute: () => 1 });
const stateSchema = z.object({ title: z.string().default("") });

describe("one single resource definition under two accessors needs a ref", () => {
  it("is refused at flow level, naming both accessors and the fix", () => {
    const brief = defineResource({ scope: "session", stateSchema });
    const error = definitionError(() => defineFlow({ kind: "f", resources: { brief, summary: brief } }));
    expect(error.message).toBe(
      'Flow "f": one single resource definition is declared under two accessors, "brief" (by flow "f") and ' +
        '"summary" (by flow "f"), and has no ref, so each accessor would store its own value (at key "brief" and ' +
        'at key "summary"). Give the definition a ref (for example ref: "brief") to share one stored value under ' +
        "both accessors, or declare it under one accessor.",
    );
    expect(error.details).toEqual({
      rule: "unnamed-shared-definition",
      flow: "f",
      accessors: ["brief", "summary"],
      declaredBy: ['flow "f"', 'flow "f"'],
    });
  });

  it("is refused across levels: the flow's accessor and a block's other one", () => {
    const brief = defineResource({ scope: "user", stateSchema });
    const error = definitionError(() =>
      defineFlow({ kind: "f", resources: { brief }, actions: { a: uses("reader", { memo: brief }) } }),
    );
    expect(error.details).toMatchObject({
      accessors: ["brief", "memo"],
      declaredBy: ['flow "f"', 'block "reader"'],
    });
  });

  it("is refused between two blocks of different actions", () => {
    const brief = defineResource({ scope: "session", stateSchema });
    const error = definitionError(() =>
      defineFlow({
        kind: "f",
        actions: { a: uses("one", { brief }), b: uses("two", { note: brief }) },
      }),
    );
    expect(error.details).toMatchObject({
      accessors: ["brief", "note"],
      declaredBy: ['block "one"', 'block "two"'],
    });
  });

  it("is accepted with a ref (one stored key, shared), under one accessor, or where a block's is shadowed", () => {
    const shared = defineResource({ scope: "session", stateSchema, ref: "brief" });
    expect(
      Object.keys(defineFlow({ kind: "f", resources: { brief: shared, summary: shared } }).resources),
    ).toEqual(["brief", "summary"]);
    const brief = defineResource({ scope: "session", stateSchema });
    expect(() =>
      defineFlow({
        kind: "g",
        resources: { brief },
        actions: { a: uses("one", { brief }), b: uses("two", { brief }) },
      }),
    ).not.toThrow();
    // The block's `other` is shadowed by the flow's own `other`: only `brief` stores the definition.
    const other = defineResource({ scope: "session", stateSchema, content: "x" });
    expect(() =>
      defineFlow({ kind: "h", resources: { brief, other }, actions: { a: uses("one", { other: brief }) } }),
    ).not.toThrow();
  });

  it("does not apply to collections (their keys are the pattern's) or external collections", () => {
    const notes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema });
    const tickets = defineExternalCollection({ pattern: "t/*", scope: "session", read: () => null });
    expect(() =>
      defineFlow({ kind: "f", resources: { notes, moreNotes: notes, tickets, moreTickets: tickets } }),
    ).not.toThrow();
  });
});
