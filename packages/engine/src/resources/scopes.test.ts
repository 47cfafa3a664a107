import { defineResource, defineResourceCollection, type FlowStores, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { type ContextOptions, makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const schema = z.object({ n: z.number().default(0) });
const sessionNote = defineResource({ scope: "session", stateSchema: schema });
const userPrefs = defineResource({ scope: "user", stateSchema: schema });
const userPrivate = defineResource({ scope: "user", stateSchema: schema, flowIsolation: true });
const orgBoard = defineResource({ scope: "org", stateSchema: schema });
const lineageNote = defineResource({
  scope: "session",
  stateSchema: schema,
  sharedToLineage: true,
  ref: "shared-note",
});
const lineageFiles = defineResourceCollection({
  pattern: "files/*",
  scope: "session",
  stateSchema: schema,
  sharedToLineage: true,
});
const all = { sessionNote, userPrefs, userPrivate, orgBoard, lineageNote, lineageFiles };

describe.each(STORE_FACTORIES)("scopes and identity ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  async function open(options: ContextOptions = {}) {
    const t = makeContext(stores, options);
    const scope = createResourceScope(t.ctx, all);
    await scope.loadScopes();
    await scope.load();
    return { ...t, scope, h: scope.handles as Record<string, any> };
  }

  it("session scope resolves against the session id", async () => {
    const a = await open();
    await a.h.sessionNote.incState({ n: 1 });
    expect(
      (
        await stores.resources.getState(
          { scope: "session", scopeId: "s1", bucket: SHARED_BUCKET },
          "sessionNote",
        )
      )?.state,
    ).toEqual({ n: 1 });
    const other = await open({ session: { id: "s2" } });
    expect(other.h.sessionNote.state).toEqual({ n: 0 });
  });

  it("user resources are shared by every flow for that user", async () => {
    const a = await open({ flow: { id: "flowA", kind: "a" } });
    await a.h.userPrefs.incState({ n: 1 });
    const b = await open({ flow: { id: "flowB", kind: "b" }, session: { id: "s9" } });
    expect(b.h.userPrefs.state).toEqual({ n: 1 });
    expect(
      (await stores.resources.getState({ scope: "user", scopeId: "u1", bucket: SHARED_BUCKET }, "userPrefs"))
        ?.state,
    ).toEqual({ n: 1 });
  });

  it("flowIsolation: true keeps a user resource to the flow copy that wrote it", async () => {
    const a = await open({ flow: { id: "flowA" } });
    await a.h.userPrivate.incState({ n: 1 });
    const b = await open({ flow: { id: "flowB" } });
    expect(b.h.userPrivate.state).toEqual({ n: 0 });
    expect(
      (await stores.resources.getState({ scope: "user", scopeId: "u1", bucket: "flowA" }, "userPrivate"))
        ?.state,
    ).toEqual({ n: 1 });
  });

  it("isolateUserState / isolateOrgState on a flow store its user and org resources apart", async () => {
    const a = await open({ flow: { id: "flowA", isolateUserState: true, isolateOrgState: true } });
    await a.h.userPrefs.incState({ n: 1 });
    await a.h.orgBoard.incState({ n: 1 });
    const b = await open({ flow: { id: "flowB" } });
    expect(b.h.userPrefs.state).toEqual({ n: 0 });
    expect(b.h.orgBoard.state).toEqual({ n: 0 });
    expect(
      (await stores.resources.getState({ scope: "org", scopeId: "o1", bucket: "flowA" }, "orgBoard"))?.state,
    ).toEqual({ n: 1 });
  });

  it("org resources resolve against the session's org and are shared by its sessions", async () => {
    const a = await open();
    await a.h.orgBoard.incState({ n: 2 });
    const b = await open({ session: { id: "s2", userId: "u2" } });
    expect(b.h.orgBoard.state).toEqual({ n: 2 });
  });

  it("an org-scoped resource on a session without an org refuses access with a clear error", async () => {
    const t = makeContext(stores, { session: { orgId: undefined } });
    const scope = createResourceScope(t.ctx, all);
    await scope.load();
    expect(() => scope.handles.orgBoard.state).toThrow(/not bound to an org/);
    expect(() => scope.scopes.org.patchState({ a: 1 })).toThrow(/not bound to an org/);
  });

  it("sharedToLineage: one identity across a conversation and sessions dispatched beneath it, at any depth", async () => {
    const root = await open();
    await root.h.lineageNote.incState({ n: 1 });
    await (await root.h.lineageFiles.create("a.md")).incState({ n: 1 });
    const grandchild = await open({
      session: { id: "s1-child-child", parentSessionId: "s1-child", rootSessionId: "s1" },
    });
    expect(grandchild.h.lineageNote.state).toEqual({ n: 1 });
    await grandchild.h.lineageNote.incState({ n: 1 });
    expect((await grandchild.h.lineageFiles.get("a.md")).state).toEqual({ n: 1 });
    expect(grandchild.h.sessionNote.state).toEqual({ n: 0 });
    expect(
      (
        await stores.resources.getState(
          { scope: "session", scopeId: "s1", bucket: SHARED_BUCKET },
          "shared-note",
        )
      )?.state,
    ).toEqual({ n: 2 });
  });

  it("handles carry immutable path, scope and uri", async () => {
    const { h } = await open();
    expect([h.lineageNote.path, h.lineageNote.scope, h.lineageNote.uri]).toEqual([
      "shared-note",
      "session",
      "session/shared-note",
    ]);
    const file = await h.lineageFiles.create("readme.md");
    expect([file.path, file.scope, file.uri]).toEqual([
      "files/readme.md",
      "session",
      "session/files/readme.md",
    ]);
    expect(() => {
      file.path = "x";
    }).toThrow(TypeError);
    expect(file.path).toBe("files/readme.md");
  });

  it("scope state lives in the scope state store; user state is shared across flows unless the flow isolates it", async () => {
    const a = await open({ flow: { id: "flowA" } });
    await a.scope.scopes.user.incState({ visits: 1 });
    await a.scope.scopes.session.patchState({ mode: "x" });
    expect(
      (await stores.scopeState.get({ scope: "user", scopeId: "u1", bucket: SHARED_BUCKET }))?.value,
    ).toEqual({ visits: 1 });
    expect(
      (await stores.scopeState.get({ scope: "session", scopeId: "s1", bucket: SHARED_BUCKET }))?.value,
    ).toEqual({ mode: "x" });
    const isolated = await open({ flow: { id: "flowB", isolateUserState: true } });
    expect(isolated.scope.scopes.user.state).toEqual({});
    await isolated.scope.scopes.user.incState({ visits: 5 });
    expect((await stores.scopeState.get({ scope: "user", scopeId: "u1", bucket: "flowB" }))?.value).toEqual({
      visits: 5,
    });
  });

  it("a shared user state record keeps fields another flow's schema does not know", async () => {
    const a = await open({
      flow: { id: "flowA", user: { stateSchema: z.object({ a: z.number().default(0) }) } },
    });
    await a.scope.scopes.user.patchState({ a: 1 });
    const b = await open({
      flow: { id: "flowB", user: { stateSchema: z.object({ b: z.number().default(0) }) } },
    });
    await b.scope.scopes.user.incState({ b: 1 });
    expect(
      (await stores.scopeState.get({ scope: "user", scopeId: "u1", bucket: SHARED_BUCKET }))?.value,
    ).toEqual({ a: 1, b: 1 });
  });

  it("the org scope state of a session without an org reads defaults and refuses writes", async () => {
    const t = makeContext(stores, {
      session: { orgId: undefined },
      flow: { org: { stateSchema: z.object({ k: z.number().default(3) }) } },
    });
    const scope = createResourceScope(t.ctx, {});
    await scope.loadScopes();
    expect(scope.scopes.org.state).toEqual({ k: 3 });
    expect((await rejection(Promise.resolve().then(() => scope.scopes.org.incState({ k: 1 })))).code).toBe(
      "resource-not-found",
    );
  });
});
