import { describe, expect, it } from "vitest";
import { z } from "zod";
import { handler } from "../blocks/handler.js";
import { sequencer } from "../blocks/sequencer.js";
import { definitionError } from "../blocks/testing/definition-error.js";
import { defineExternalCollection, defineResource, defineResourceCollection } from "../resources/index.js";
import { defineFlow } from "./define-flow.js";

const schema = z.object({ pub: z.string().default(""), secret: z.string().default("") });
const fullClient = {
  state: { read: true },
  content: { read: true, create: true, update: true, delete: true },
} as const;
const collection = (pattern: string, extra: Record<string, unknown> = {}) =>
  defineResourceCollection({ pattern, scope: "session", stateSchema: schema, ...extra });
const uses = (name: string, resources: Record<string, unknown>) =>
  handler({ name, resources: resources as never, execute: () => 1 });

describe("definitions whose stored keys overlap in one storage are refused", () => {
  it("a hidden single resource beside a * collection with full client access", () => {
    const secretDoc = defineResource({ scope: "session", content: "top secret" });
    const docs = collection("*", { client: fullClient });
    const error = definitionError(() => defineFlow({ kind: "f", resources: { secretDoc, docs } }));
    expect(error.message).toMatch(
      /^Flow "f": every stored key of resource "secretDoc" \(single resource at key "secretDoc", declared by flow "f"\) is also a key of "docs" \(collection "\*", declared by flow "f"\) in session scope, for example "secretDoc"/,
    );
    expect(error.details).toMatchObject({
      rule: "storage-overlap",
      flow: "f",
      accessors: ["secretDoc", "docs"],
      key: "secretDoc",
      scope: "session",
    });
  });

  it("hid/* without client beside hid/** with client", () => {
    const hid = collection("hid/*");
    const all = collection("hid/**", { client: fullClient });
    const error = definitionError(() => defineFlow({ kind: "f", resources: { hid, all } }));
    expect(error.message).toMatch(/resource "hid" .* is also a key of "all" .* for example "hid\/x"/);
    expect(error.details).toMatchObject({ accessors: ["hid", "all"], key: "hid/x" });
  });

  it("an expose-projected pj/* beside a full-client pj/** (excluded fields would leak)", () => {
    const pj = collection("pj/*", { client: { state: { read: true }, expose: ["pub"] } });
    const pjAll = collection("pj/**", { client: fullClient });
    expect(definitionError(() => defineFlow({ kind: "f", resources: { pj, pjAll } })).details).toMatchObject({
      accessors: ["pj", "pjAll"],
      key: "pj/x",
    });
  });

  it("two collections with one pattern, two single resources with one ref", () => {
    expect(
      definitionError(() =>
        defineFlow({ kind: "f", resources: { a: collection("notes/*"), b: collection("notes/*") } }),
      ).details,
    ).toMatchObject({ key: "notes/x" });
    const one = defineResource({ scope: "session", ref: "shared/brief" });
    const two = defineResource({ scope: "session", ref: "shared/brief" });
    expect(definitionError(() => defineFlow({ kind: "f", resources: { one, two } })).details).toMatchObject({
      key: "shared/brief",
    });
  });

  it("patterns that only cross are allowed: the specification's files/** beside [topic]/notes", () => {
    // They share "files/notes" alone; each keeps keys the other cannot reach.
    expect(() =>
      defineFlow({
        kind: "f",
        resources: {
          files: collection("files/**"),
          byTopic: collection("[topic]/notes"),
          one: collection("files/*"),
        },
      }),
    ).toThrow(/every stored key of resource "one" .* is also a key of "files"/);
    const flow = defineFlow({
      kind: "f",
      resources: {
        files: collection("files/**"),
        byTopic: collection("[topic]/notes"),
        leaf: collection("*/x"),
      },
    });
    expect(Object.keys(flow.resources)).toEqual(["files", "byTopic", "leaf"]);
  });

  it("includes block-level declarations of actions, webhooks and reactions, naming the declaring block", () => {
    const secretDoc = defineResource({ scope: "session" });
    const docs = collection("*", { client: fullClient });
    const listing = sequencer({ name: "seq", steps: [uses("plain", {}), uses("lister", { docs })] });
    const error = definitionError(() =>
      defineFlow({ kind: "f", resources: { secretDoc }, actions: { list: listing } }),
    );
    expect(error.message).toMatch(
      /"secretDoc" .*declared by flow "f"\) is also a key of "docs" .*declared by block "lister"\)/,
    );
    expect(error.details).toMatchObject({ declaredBy: ['flow "f"', 'block "lister"'] });

    expect(
      definitionError(() =>
        defineFlow({
          kind: "f",
          actions: { a: uses("keeper", { secretDoc }) },
          webhooks: { gh: { on: { push: { block: uses("hook", { docs }) } } } },
        }),
      ).details,
    ).toMatchObject({ accessors: ["secretDoc", "docs"], declaredBy: ['block "keeper"', 'block "hook"'] });

    expect(
      definitionError(() =>
        defineFlow({
          kind: "f",
          resources: { secretDoc },
          reactions: [{ reactTo: { resource: "secretDoc" }, block: uses("reactor", { docs }) }],
        }),
      ).details,
    ).toMatchObject({ declaredBy: ['flow "f"', 'block "reactor"'] });
  });

  it("session scope is one storage: a sharedToLineage resource shares the root session with plain ones", () => {
    // In the root session the lineage's storage is the session's own (engine: resolveScopeId).
    const lineage = collection("*", { sharedToLineage: true, client: fullClient });
    const draft = defineResource({ scope: "session" });
    expect(
      definitionError(() => defineFlow({ kind: "f", resources: { draft, lineage } })).details,
    ).toMatchObject({ key: "draft" });
  });

  it("user and org resources in the flow's bucket overlap when the flow isolates that scope", () => {
    const own = defineResource({ scope: "user", flowIsolation: true, ref: "prefs" });
    const shared = defineResourceCollection({ pattern: "*", scope: "user", client: fullClient });
    expect(() => defineFlow({ kind: "f", resources: { own, shared } })).not.toThrow();
    expect(
      definitionError(() => defineFlow({ kind: "f", isolateUserState: true, resources: { own, shared } }))
        .details,
    ).toMatchObject({ scope: "user", key: "prefs" });
    const orgOwn = defineResource({ scope: "org", flowIsolation: true, ref: "plan" });
    const orgOwnAll = defineResourceCollection({ pattern: "*", scope: "org", flowIsolation: true });
    expect(
      definitionError(() => defineFlow({ kind: "f", resources: { orgOwn, orgOwnAll } })).details,
    ).toMatchObject({ scope: "org", key: "plan" });
    // isolateUserState does not move org data.
    const orgShared = defineResourceCollection({ pattern: "*", scope: "org" });
    expect(() =>
      defineFlow({ kind: "f", isolateUserState: true, resources: { orgOwn, orgShared } }),
    ).not.toThrow();
  });
});

describe("what the overlap check leaves alone", () => {
  it("disjoint keys and patterns, and different scopes", () => {
    const notesIndex = defineResource({ scope: "session", ref: "notes" });
    const flow = defineFlow({
      kind: "f",
      resources: {
        notesIndex,
        notes: collection("notes/*", { client: fullClient }),
        drafts: collection("drafts/**"),
        byTopic: collection("topics/[topic]/summary"),
        userNotes: defineResourceCollection({ pattern: "*", scope: "user", client: fullClient }),
        orgNotes: defineResourceCollection({ pattern: "*", scope: "org" }),
      },
    });
    expect(Object.keys(flow.resources)).toHaveLength(6);
  });

  it("one definition object under several accessors and declared by several blocks", () => {
    const docs = collection("*", { client: fullClient });
    const brief = defineResource({ scope: "session" });
    const flow = defineFlow({
      kind: "f",
      resources: { docs, alsoDocs: docs },
      actions: { a: uses("a", { docs }), b: uses("b", { moreDocs: docs }) },
    });
    expect(flow.resources).toEqual({ docs, alsoDocs: docs });
    // A single definition under two accessors needs a ref (see unnamed-shared-definition.test.ts).
    expect(() => defineFlow({ kind: "g", resources: { brief, brief2: brief } })).toThrow(/has no ref/);
  });

  it("external collections store nothing in the resource store", () => {
    const secretDoc = defineResource({ scope: "session" });
    const tickets = defineExternalCollection({
      pattern: "*",
      scope: "session",
      read: () => null,
      client: { state: { read: true } },
    });
    expect(() => defineFlow({ kind: "f", resources: { secretDoc, tickets } })).not.toThrow();
  });

  it("a block-level declaration shadowed by a flow-level one is not compared", () => {
    const secretDoc = defineResource({ scope: "session" });
    const docs = collection("docs/*", { client: fullClient });
    const everything = collection("*", { client: fullClient });
    // The block asks for "docs"; the flow's `docs/*` is what it gets, so its own `*` is never used.
    const flow = defineFlow({
      kind: "f",
      resources: { secretDoc, docs },
      actions: { a: uses("greedy", { docs: everything }) },
    });
    expect(flow.resources).toEqual({ secretDoc, docs });
  });

  it("no check across flows: two flows may share a user key on purpose", () => {
    const prefsA = defineResource({ scope: "user", ref: "prefs" });
    const prefsB = defineResource({ scope: "user", ref: "prefs" });
    expect(() => defineFlow({ kind: "a", resources: { prefs: prefsA } })).not.toThrow();
    expect(() => defineFlow({ kind: "b", resources: { prefs: prefsB } })).not.toThrow();
  });
});
