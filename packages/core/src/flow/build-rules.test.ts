import { describe, expect, it } from "vitest";
import { z } from "zod";
import { generator } from "../blocks/generator.js";
import { handler } from "../blocks/handler.js";
import { router } from "../blocks/router.js";
import { sequencer } from "../blocks/sequencer.js";
import { rescue } from "../blocks/sequencer-steps.js";
import { definitionError } from "../blocks/testing/definition-error.js";
import { defineResource, defineResourceCollection } from "../resources/index.js";
import { defineFlow } from "./define-flow.js";

const schema = z.object({ title: z.string().default("") });
const notes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema: schema });
const otherNotes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema: schema });
const prefs = defineResource({
  scope: "user",
  stateSchema: z.object({ theme: z.string().default("light") }),
});
const model = { specificationVersion: "v3", modelId: "m" };

const usesNotes = handler({ name: "usesNotes", resources: { notes }, execute: () => 1 });
const usesOtherNotes = handler({
  name: "usesOtherNotes",
  resources: { notes: otherNotes },
  execute: () => 1,
});
const plain = handler({ name: "plain", execute: () => 1 });

describe("rule 10: one resource definition per accessor name", () => {
  it("accepts the same definition object declared by several blocks and the flow", () => {
    const again = handler({ name: "again", resources: { notes }, execute: () => 1 });
    const flow = defineFlow({ kind: "f", resources: { notes }, actions: { a: usesNotes, b: again } });
    expect(flow.resources).toEqual({ notes });
  });

  it("refuses two blocks of different actions declaring different definitions, naming the accessor and both blocks", () => {
    const error = definitionError(() =>
      defineFlow({ kind: "f", actions: { a: usesNotes, b: usesOtherNotes } }),
    );
    expect(error.message).toMatch(
      /Flow "f": resource accessor "notes" is declared with two different resource definitions, by block "usesNotes" and by block "usesOtherNotes"/,
    );
    expect(error.details).toMatchObject({ rule: 10, accessor: "notes" });
  });

  it("lets a flow-level declaration take priority over a block's different definition of the accessor", () => {
    const flow = defineFlow({ kind: "f", resources: { notes: otherNotes }, actions: { a: usesNotes } });
    expect(flow.resources).toEqual({ notes: otherNotes });
    // The block keeps what it declared; the runtime hands it the flow's resource under that accessor.
    expect(flow.actions.a?.block.resources).toEqual({ notes });
  });

  it("still refuses two blocks with different definitions when the flow also declares the accessor", () => {
    const error = definitionError(() =>
      defineFlow({ kind: "f", resources: { notes }, actions: { a: usesNotes, b: usesOtherNotes } }),
    );
    expect(error.message).toMatch(/accessor "notes" .* by block "usesNotes" and by block "usesOtherNotes"/);
  });

  it("walks sequencer steps, router routes, rescue fallbacks and generators", () => {
    const deepFallback = sequencer({ name: "seq", steps: [rescue(plain, usesOtherNotes)] });
    expect(
      definitionError(() => defineFlow({ kind: "f", actions: { a: usesNotes, b: deepFallback } })).message,
    ).toMatch(/by block "usesNotes" and by block "usesOtherNotes"/);

    const routed = router({ name: "r", routes: { x: plain, y: usesOtherNotes }, select: () => "x" });
    expect(
      definitionError(() => defineFlow({ kind: "f", actions: { a: usesNotes, r: routed } })).message,
    ).toMatch(/by block "usesNotes" and by block "usesOtherNotes"/);

    const writer = generator({ name: "writer", model, prompt: "p", resources: { notes: otherNotes } });
    const inner = sequencer({ name: "inner", steps: [usesNotes, writer] });
    expect(definitionError(() => defineFlow({ kind: "f", actions: { a: inner } })).message).toMatch(
      /by block "usesNotes" and by block "writer"/,
    );
  });

  it("includes webhook binding blocks", () => {
    expect(
      definitionError(() =>
        defineFlow({
          kind: "f",
          actions: { a: usesNotes },
          webhooks: { gh: { on: { push: { block: usesOtherNotes } } } },
        }),
      ).message,
    ).toMatch(/by block "usesNotes" and by block "usesOtherNotes"/);
  });

  it("allows different accessor names for different definitions", () => {
    const drafts = defineResourceCollection({ pattern: "drafts/*", scope: "session", stateSchema: schema });
    const both = handler({ name: "both", resources: { notes, drafts }, execute: () => 1 });
    expect(defineFlow({ kind: "f", actions: { a: usesNotes, b: both } }).actions.b?.block).toBe(both);
  });
});

describe("rule 6 at flow level: no lazy single resource in defineFlow resources", () => {
  const draft = defineResource({ scope: "session", prefetchMode: "lazy" });

  it("refuses a lazy single resource declared at flow level", () => {
    expect(definitionError(() => defineFlow({ kind: "f", resources: { draft } })).message).toMatch(
      /prefetchMode "lazy"/,
    );
  });

  it("accepts it declared on the block that needs it", () => {
    const edit = handler({ name: "edit", resources: { draft }, execute: () => 1 });
    expect(defineFlow({ kind: "f", actions: { edit } }).actions.edit?.block.resources).toEqual({ draft });
  });
});

describe("rule 11: requireUser: false forbids user identity features", () => {
  const noUser = { requireUser: false, defaultUserId: "system" } as const;

  it("accepts a flow without user-scope state, user-scope resources or client blocks", () => {
    const flow = defineFlow({
      kind: "hooks",
      authentication: noUser,
      session: { stateSchema: z.object({ n: z.number().default(0) }) },
      org: { stateSchema: z.object({ plan: z.string().default("free") }) },
      resources: { notes },
      actions: { a: usesNotes },
    });
    expect(flow.authentication.requireUser).toBe(false);
  });

  it("refuses user.stateSchema", () => {
    const error = definitionError(() =>
      defineFlow({ kind: "f", authentication: noUser, user: { stateSchema: z.object({ a: z.string() }) } }),
    );
    expect(error.message).toMatch(/Flow "f" sets requireUser: false but declares user.stateSchema/);
    expect(error.details).toMatchObject({ rule: 11, scope: "user" });
  });

  it("refuses a user-scope resource at flow level", () => {
    expect(
      definitionError(() => defineFlow({ kind: "f", authentication: noUser, resources: { prefs } })).message,
    ).toMatch(/requireUser: false but flow "f" declares user-scope resource "prefs"/);
  });

  it("refuses a user-scope resource declared deep in an action or webhook block tree", () => {
    const deep = handler({ name: "deep", resources: { prefs }, execute: () => 1 });
    const seq = sequencer({ name: "seq", steps: [plain, deep] });
    expect(
      definitionError(() => defineFlow({ kind: "f", authentication: noUser, actions: { a: seq } })).message,
    ).toMatch(/block "deep" declares user-scope resource "prefs"/);
    expect(
      definitionError(() =>
        defineFlow({
          kind: "f",
          authentication: noUser,
          webhooks: { gh: { on: { push: { block: deep } } } },
        }),
      ).message,
    ).toMatch(/block "deep" declares user-scope resource "prefs"/);
  });

  it("refuses a client block on any scope config", () => {
    const stateSchema = z.object({ n: z.number().default(0) });
    for (const scope of ["session", "org"] as const) {
      const error = definitionError(() =>
        defineFlow({
          kind: "f",
          authentication: noUser,
          [scope]: { stateSchema, client: { expose: ["n"] } },
        }),
      );
      expect(error.message).toContain(
        `requireUser: false but declares ${scope === "org" ? "an" : "a"} ${scope} client block`,
      );
    }
    expect(
      definitionError(() =>
        defineFlow({ kind: "f", authentication: noUser, user: { client: { derived: { x: () => 1 } } } }),
      ).message,
    ).toMatch(/requireUser: false but declares a user client block/);
  });

  it("does not apply while requireUser is left at its default", () => {
    const flow = defineFlow({
      kind: "f",
      user: { stateSchema: z.object({ n: z.number().default(0) }), client: { expose: ["n"] } },
      resources: { prefs },
    });
    expect(flow.user.client?.expose).toEqual(["n"]);
  });
});

describe("reactions", () => {
  const noop = handler({ name: "noop", execute: async () => undefined });

  it("refuses unknown keys in a reaction and in its trigger, as actions do", () => {
    expect(() =>
      defineFlow({
        kind: "r1",
        reactions: [{ reactTo: { contentUpdated: "x" }, block: noop, when: 1 } as never],
      }),
    ).toThrow(/"when" is not an option here/);
    expect(() =>
      defineFlow({
        kind: "r2",
        reactions: [{ reactTo: { resource: "x", chnages: ["created"] }, block: noop } as never],
      }),
    ).toThrow(/"chnages" is not an option here/);
  });

  it("refuses a missing block and an unknown change", () => {
    expect(() => defineFlow({ kind: "r3", reactions: [{ reactTo: { resource: "x" } } as never] })).toThrow(
      /"block" must be a block/,
    );
    expect(() =>
      defineFlow({
        kind: "r4",
        reactions: [{ reactTo: { resource: "x", changes: ["renamed"] }, block: noop } as never],
      }),
    ).toThrow(/"changes" lists some of/);
  });
});
