import {
  defineFlow,
  defineResource,
  handler,
  type PrincipalResolutionContext,
  type RequestEvent,
} from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlowHost, type FlowHost } from "../host.js";
import type { DispatchOptions, InboundAdapter } from "../host-options.js";
import { silentLogger } from "../logger.js";
import { headerCaller, settle, storeFactories, useHost, withHost } from "../testing/fixtures.js";

const seen: PrincipalResolutionContext[] = [];

const shared = defineResource({
  scope: "session",
  sharedToLineage: true,
  stateSchema: z.object({ visits: z.number().default(0) }),
});

let release: (() => void) | undefined;

const visit = handler({
  name: "visit",
  resources: { shared },
  execute: async (_input, ctx) => {
    await ctx.resources.shared.incState({ visits: 1 });
    return { visits: ctx.resources.shared.state.visits, user: ctx.principal.userId };
  },
});

const hold = handler({
  name: "hold",
  execute: async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return "released";
  },
});

const chat = defineFlow({
  kind: "chat",
  authentication: {
    resolvePrincipal: (c) => {
      seen.push(c);
      const user = c.request?.headers["x-user"];
      return typeof user === "string" ? { userId: user } : null;
    },
  },
  actions: { visit: { block: visit }, hold: { block: hold } },
});

describe.each(storeFactories)(
  "dispatch, lineage and the resolution context on the $name store",
  (factory) => {
    const env = useHost(factory, () => ({ flows: [chat] }));
    let host: FlowHost;
    /** An agent's fire-and-forget dispatch of `visit` as `principal`; `extra` names a parent or an emitter. */
    const visit = (principal: unknown, extra: Partial<DispatchOptions> = {}) =>
      host.dispatch({
        source: "agent",
        flowKind: "chat",
        action: "visit",
        input: null,
        principal: principal as DispatchOptions["principal"],
        responseEmitter: null,
        ...extra,
      });
    beforeEach(() => {
      seen.length = 0;
      release = undefined;
      host = env.host;
    });
    // Free a handler still holding, so that closing the host does not wait on it.
    afterEach(() => release?.());

    it("an asserted principal wins over the resolver, and the emitter receives every event in order", async () => {
      const received: RequestEvent[] = [];
      const { requestId, done } = await host.dispatch({
        source: "cron",
        flowKind: "chat",
        action: "visit",
        input: null,
        principal: { userId: "svc" },
        responseEmitter: (event) => received.push(event),
      });
      const record = await done;
      expect(seen).toHaveLength(0);
      expect(record.userId).toBe("svc");
      expect(record.output).toEqual({ visits: 1, user: "svc" });
      expect(record.metadata.origin).toBe("cron");
      expect(received.map((e) => e.seq)).toEqual(received.map((_, i) => i + 1));
      expect(received.at(-1)?.type).toBe("request.completed");
      expect(received[0]?.requestId).toBe(requestId);
    });

    it("responseEmitter: null is fire-and-forget: dispatch returns before the request finishes", async () => {
      const { requestId } = await host.dispatch({
        source: "queue",
        flowKind: "chat",
        action: "hold",
        input: null,
        principal: { userId: "svc" },
        responseEmitter: null,
      });
      const pending = await host.stores.requests.get(requestId);
      expect(["queued", "running"]).toContain(pending?.status);
      for (let i = 0; i < 100 && !release; i++) await new Promise((r) => setTimeout(r, 5));
      release?.();
      expect((await settle(host, requestId)).record.output).toBe("released");
    });

    it("sessions dispatched beneath a conversation record their parent and root, at any depth", async () => {
      const root = await host.createSession("chat", headerCaller("u1"));
      const child = await visit({ userId: "u1" }, { parentSessionId: root.id });
      await settle(host, child.requestId);
      const grandchild = await visit({ userId: "u1" }, { parentSessionId: child.sessionId });
      const { record } = await settle(host, grandchild.requestId);
      // sharedToLineage: one identity of the resource across the whole lineage.
      expect(record.output).toEqual({ visits: 2, user: "u1" });
      const stored = await host.stores.sessions.get(grandchild.sessionId);
      expect(stored?.parentSessionId).toBe(child.sessionId);
      expect(stored?.rootSessionId).toBe(root.id);

      const children = await host.listChildren(root.id, headerCaller("u1"));
      expect(children.map((s) => s.id)).toEqual([child.sessionId]);
      await expect(host.listChildren(root.id, headerCaller("u2"))).rejects.toMatchObject({
        code: "forbidden",
      });
    });

    it("children of a parent stored without an owner are listed (its kind's only instance governs both); a child of another org under a parent bound to none is not", async () => {
      const now = new Date().toISOString();
      const legacy = {
        id: "legacy-root",
        flowId: null,
        flowKind: "chat",
        userId: "u1",
        metadata: {},
        createdAt: now,
      };
      await host.stores.sessions.create(legacy as never);
      const child = await visit({ userId: "u1" }, { parentSessionId: "legacy-root" });
      await settle(host, child.requestId);
      const root = await host.createSession("chat", headerCaller("u1"));
      await host.stores.sessions.create({
        id: "other-org-child",
        flowId: "chat",
        flowKind: "chat",
        userId: "u1",
        orgId: "oX",
        parentSessionId: root.id,
        rootSessionId: root.id,
        metadata: {},
        createdAt: now,
      } as never);
      expect((await host.listChildren("legacy-root", headerCaller("u1"))).map((s) => s.id)).toEqual([
        child.sessionId,
      ]);
      expect(await host.listChildren(root.id, headerCaller("u1"))).toEqual([]);
    });

    it("a child cannot be dispatched beneath another user's conversation", async () => {
      const root = await host.createSession("chat", headerCaller("u1"));
      const before = (await host.stores.sessions.list({})).total;
      await expect(visit({ userId: "u2" }, { parentSessionId: root.id })).rejects.toMatchObject({
        code: "user-binding-mismatch",
      });
      expect((await host.stores.sessions.list({ userId: "u2" })).total).toBe(0);
      expect((await host.stores.sessions.list({})).total).toBe(before);
    });

    it("nor beneath the same user's conversation from another tenant, which would share its lineage resources", async () => {
      const root = await host.createSession("chat", {
        source: "test",
        principal: { userId: "u1", tenantId: "t1" },
      });
      const before = (await host.stores.sessions.list({})).total;
      await expect(
        visit({ userId: "u1", tenantId: "t2" }, { parentSessionId: root.id }),
      ).rejects.toMatchObject({ code: "forbidden" });
      expect((await host.stores.sessions.list({})).total).toBe(before);
    });

    it("an asserted principal is held to the resolver's rules: only non-empty string ids count, no user is 401", async () => {
      const before = (await host.stores.sessions.list({})).total;
      for (const principal of [{}, { userId: "" }, { userId: 42 }, { userId: ["a", "b"] }, { orgId: "o1" }]) {
        await expect(visit(principal), JSON.stringify(principal)).rejects.toMatchObject({
          code: "unauthorized",
        });
      }
      expect((await host.stores.sessions.list({})).total).toBe(before);
      // Fields that are not non-empty strings are dropped, as from a resolver.
      const { done } = await visit({ userId: "svc", orgId: "" }, { responseEmitter: () => {} });
      expect((await done).orgId).toBeUndefined();
    });

    it("a parent bound to no tenant lists a child bound to one only to a caller who owns that child", async () => {
      const root = await host.createSession("chat", { source: "test", principal: { userId: "u1" } });
      const { sessionId: childId, done } = await visit(
        { userId: "u1", tenantId: "tX" },
        { parentSessionId: root.id, responseEmitter: () => {} },
      );
      await done;
      const listedTo = async (tenantId?: string) =>
        (
          await host.listChildren(root.id, {
            source: "test",
            principal: tenantId ? { userId: "u1", tenantId } : { userId: "u1" },
          })
        ).map((child) => child.id);
      expect(await listedTo("tX")).toEqual([childId]);
      expect(await listedTo("tY")).toEqual([]);
      expect(await listedTo()).toEqual([]);
    });

    it("an input JSON cannot hold is invalid-input before any session is made for it", async () => {
      const before = (await host.stores.sessions.list({})).total;
      for (const input of [
        { amount: 1n },
        (() => {
          const o: Record<string, unknown> = {};
          o.self = o;
          return o;
        })(),
      ]) {
        await expect(
          host.dispatch({
            source: "agent",
            flowKind: "chat",
            action: "visit",
            input,
            principal: { userId: "u1" },
            responseEmitter: null,
          }),
        ).rejects.toMatchObject({ code: "invalid-input" });
        await expect(
          host.invoke("chat", "visit", { source: "test", principal: { userId: "u1" } }, { input }),
        ).rejects.toMatchObject({ code: "invalid-input" });
      }
      expect((await host.stores.sessions.list({})).total).toBe(before);
    });

    it("the resolver sees source, request headers, cookies and URL; metadata.body only on action calls", async () => {
      const caller = {
        source: "http",
        request: {
          method: "POST",
          url: "/api/flows/chat/actions/visit?x=1",
          headers: { "x-user": "u1" },
          cookies: { sid: "c" },
        },
        body: { input: 1, note: "hi" },
      };
      const { request, session } = await host.invoke("chat", "visit", caller, { input: 1 });
      await settle(host, request.id);
      const onAction = seen.at(-1)!;
      expect(onAction.source).toBe("http");
      expect(onAction.request?.url).toBe("/api/flows/chat/actions/visit?x=1");
      expect(onAction.request?.cookies).toEqual({ sid: "c" });
      expect(onAction.envelope).toMatchObject({ flowKind: "chat", action: "visit", input: 1 });
      expect(onAction.envelope.metadata.body).toEqual({ input: 1, note: "hi" });

      await host.getSession(session.id, { ...caller, body: { ignored: true } });
      const onRead = seen.at(-1)!;
      expect(onRead.envelope.metadata.body).toBeUndefined();
      expect(onRead.envelope.sessionId).toBe(session.id);
    });

    it("running requests are in the active registry, listed only to their owner, and leave it when done", async () => {
      const { request } = await host.invoke("chat", "hold", headerCaller("u1"), {});
      for (let i = 0; i < 100 && !release; i++) await new Promise((r) => setTimeout(r, 5));
      const active = await host.stores.requests.listActive({ userId: "u1" });
      expect(active.map((a) => a.requestId)).toContain(request.id);
      release?.();
      await settle(host, request.id);
      expect((await host.stores.requests.listActive({ userId: "u1" })).map((a) => a.requestId)).not.toContain(
        request.id,
      );
    });

    it("custom inbound adapters expose their routes with their source", async () => {
      const adapter: InboundAdapter<FlowHost> = {
        source: "slack-commands",
        createBindings: (h) => ({
          routes: [
            {
              method: "POST",
              path: "/hooks/slash",
              handler: async () => {
                const { requestId } = await h.dispatch({
                  source: "slack-commands",
                  flowKind: "chat",
                  action: "visit",
                  input: null,
                  principal: { userId: "slack-user" },
                  responseEmitter: null,
                });
                return Response.json({ requestId }, { status: 202 });
              },
            },
          ],
        }),
      };
      const withAdapter = createFlowHost({
        flows: [chat],
        stores: host.stores,
        logger: silentLogger,
        recoveryIntervalMs: 0,
        inbound: [adapter],
      });
      await withAdapter.start();
      const [route] = withAdapter.inboundRoutes();
      expect(route).toMatchObject({ method: "POST", path: "/hooks/slash", source: "slack-commands" });
      const response = await route!.handler(new Request("http://localhost/hooks/slash", { method: "POST" }));
      expect(response.status).toBe(202);
      const { requestId } = (await response.json()) as { requestId: string };
      const { record } = await settle(withAdapter, requestId);
      expect(record).toMatchObject({ status: "completed", userId: "slack-user" });
      expect(record.metadata.origin).toBe("slack-commands");
      await withAdapter.close();
    });
  },
);

describe("dispatch addressing", () => {
  it("names an instance id or a kind's only instance; a kind with several instances is refused", async () => {
    const noop = handler({ name: "noop", execute: async () => "ok" });
    const kind = defineFlow({ kind: "multi", actions: { noop } });
    await withHost(
      { flows: [kind.instance({ id: "multi-a" }), kind.instance({ id: "multi-b" })] },
      async (host) => {
        const base = {
          source: "test",
          action: "noop",
          input: null,
          principal: { userId: "u" },
          responseEmitter: null,
        };
        await expect(host.dispatch({ ...base, flowKind: "multi" })).rejects.toMatchObject({
          code: "flow-not-found",
        });
        expect((await host.stores.sessions.list({})).total).toBe(0);
        const { done } = await host.dispatch({ ...base, flowKind: "multi-b" });
        expect((await done).flowId).toBe("multi-b");
      },
    );
  });
});

describe("outputs JSON cannot hold", () => {
  it("fail the request with invalid-output, with or without action hooks", async () => {
    const odd = handler({ name: "odd", execute: async () => ({ amount: 1n }) });
    const completed: unknown[] = [];
    const errored: unknown[] = [];
    const flow = defineFlow({
      kind: "odd",
      actions: {
        bare: odd,
        hooked: {
          block: odd,
          onCompleted: (output) => {
            completed.push(output);
          },
          onErrored: (error) => {
            errored.push(error);
          },
        },
      },
    });
    await withHost({ flows: [flow] }, async (host) => {
      for (const action of ["bare", "hooked"]) {
        const { request } = await host.invoke(
          "odd",
          action,
          { source: "test", principal: { userId: "u1" } },
          { input: null },
        );
        const { record } = await settle(host, request.id);
        expect(record.status).toBe("failed");
        expect(record.error).toMatchObject({ code: "invalid-output" });
        expect(record.error?.message).toContain("cannot be stored as JSON");
      }
      expect(completed).toEqual([]);
      expect(errored).toHaveLength(1);
    });
  });
});
