import {
  defineFlow,
  defineResource,
  defineResourceCollection,
  handler,
  hasErrorCode,
  isFlowError,
  type PrincipalResolutionContext,
  PrincipalResolutionError,
} from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlowHost, type FlowHost } from "./host.js";
import { silentLogger } from "./logger.js";
import { headerCaller, settle, storeFactories, useHost, withHost } from "./testing/fixtures.js";
import { recordingLogger } from "./testing/recording-logger.js";

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

const addNote = handler({
  name: "addNote",
  inputSchema: z.object({ key: z.string(), title: z.string() }),
  execute: async (input, ctx) => {
    await ctx.resources.notes.create(input.key, { title: input.title });
    await ctx.session.incState({ added: 1 });
    return { ok: true, added: ctx.session.state.added };
  },
});

const fail = handler({
  name: "fail",
  execute: async () => {
    throw new Error("boom");
  },
});

const waitForAbort = handler({
  name: "waitForAbort",
  execute: (_input, ctx) =>
    new Promise((_resolve, reject) => {
      if (ctx.signal.aborted) reject(new Error("stopped"));
      ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
    }),
});

const headerResolver = async (c: PrincipalResolutionContext) => {
  const user = c.request?.headers["x-user"];
  if (user === "throw") throw new Error("secret-token-abc leaked?");
  if (user === "teapot") throw new PrincipalResolutionError("no tea", { status: 418 });
  return { userId: user, orgId: c.request?.headers["x-org"] };
};

const notebook = defineFlow({
  kind: "notebook",
  authentication: { resolvePrincipal: headerResolver },
  session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
  resources: { notes },
  actions: { addNote: { block: addNote }, fail: { block: fail }, waitForAbort: { block: waitForAbort } },
});

/** Every request record in the host's store, whatever its status. */
function allRequests(host: FlowHost) {
  return host.stores.requests.listByStatus(["queued", "running", "completed", "failed", "aborted"]);
}

async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isFlowError(error)).toBe(true);
  return error as { code: string; message: string; status?: number };
}

describe.each(storeFactories)("runtime host on the $name store", (factory) => {
  const env = useHost(factory, () => ({ flows: [notebook] }));
  let host: FlowHost;
  beforeEach(() => {
    host = env.host;
  });

  it("an action runs its handler, writes state and resources, and streams events in order", async () => {
    const { request, session } = await host.invoke("notebook", "addNote", headerCaller("u1"), {
      input: { key: "a", title: "First" },
    });
    const { record, events } = await settle(host, request.id);
    expect(record.status).toBe("completed");
    expect(record.output).toEqual({ ok: true, added: 1 });
    expect(record.userId).toBe("u1");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.type).toBe("request.started");
    expect(events.at(-1)!.type).toBe("request.completed");
    const types = events.map((e) => e.type);
    expect(types).toContain("resource_change");
    expect(types).toContain("state_change");
    const stateChange = events.find((e) => e.type === "state_change")!;
    expect(stateChange.data).toEqual({ scope: "session", clientData: { added: 1 } });
    expect(session.userId).toBe("u1");
    const snapshot = await host.snapshot(session.id, headerCaller("u1"));
    expect(snapshot.clientData.session).toEqual({ added: 1 });
  });

  it("no credential is a 401 (unauthorized) and nothing is written", async () => {
    const error = await rejection(
      host.invoke("notebook", "addNote", headerCaller(), { input: { key: "a", title: "x" } }),
    );
    expect(error.code).toBe("unauthorized");
    expect((await host.stores.sessions.list({})).total).toBe(0);
    expect(await allRequests(host)).toEqual([]);
  });

  it("a resolver that throws fails closed (401) without logging its message", async () => {
    const lines: string[] = [];
    const logged = createFlowHost({
      flows: [notebook],
      stores: host.stores,
      recoveryIntervalMs: 0,
      logger: {
        ...silentLogger,
        warn: (d: object | string, m?: string) => void lines.push(JSON.stringify({ m, d })),
      },
    });
    await logged.start();
    const error = await rejection(logged.invoke("notebook", "addNote", headerCaller("throw"), { input: {} }));
    expect(error.code).toBe("unauthorized");
    expect(lines.join("\n")).not.toContain("secret-token-abc");
    await logged.close();
  });

  it("PrincipalResolutionError passes its status through", async () => {
    const error = await rejection(host.invoke("notebook", "addNote", headerCaller("teapot"), { input: {} }));
    expect(error.code).toBe("principal-resolution-failed");
    expect(error.status).toBe(418);
    expect((await host.stores.sessions.list({})).total).toBe(0);
    expect(await allRequests(host)).toEqual([]);
  });

  it("a session's user is bound for life: another user gets UserBindingMismatchError at context creation", async () => {
    const { request, session } = await host.invoke("notebook", "addNote", headerCaller("u1"), {
      input: { key: "a", title: "x" },
    });
    await settle(host, request.id);
    const before = await host.stores.requests.listByStatus(["completed", "failed", "queued", "running"]);
    const error = await rejection(
      host.invoke("notebook", "addNote", headerCaller("u2"), {
        input: { key: "b", title: "y" },
        sessionId: session.id,
      }),
    );
    expect(error.code).toBe("user-binding-mismatch");
    const after = await host.stores.requests.listByStatus(["completed", "failed", "queued", "running"]);
    expect(after.length).toBe(before.length);
  });

  it("the user is checked before the org: same user, other org gets OrgBindingMismatchError", async () => {
    const { request, session } = await host.invoke(
      "notebook",
      "addNote",
      headerCaller("u1", { "x-org": "o1" }),
      {
        input: { key: "a", title: "x" },
      },
    );
    await settle(host, request.id);
    expect(session.orgId).toBe("o1");
    const otherOrg = await rejection(
      host.invoke("notebook", "addNote", headerCaller("u1", { "x-org": "o2" }), {
        input: {},
        sessionId: session.id,
      }),
    );
    expect(otherOrg.code).toBe("org-binding-mismatch");
    const otherBoth = await rejection(
      host.invoke("notebook", "addNote", headerCaller("u2", { "x-org": "o2" }), {
        input: {},
        sessionId: session.id,
      }),
    );
    expect(otherBoth.code).toBe("user-binding-mismatch");
    expect((await allRequests(host)).map((r) => r.id)).toEqual([request.id]);
    expect((await host.stores.sessions.list({})).total).toBe(1);
  });

  it("an orgId in the body never changes the org", async () => {
    const session = await host.createSession("notebook", headerCaller("u1", { "x-org": "o1" }), {
      userId: "intruder",
      orgId: "o-evil",
    } as never);
    expect(session.userId).toBe("u1");
    expect(session.orgId).toBe("o1");
  });

  it("a failing handler lands as a failed request with its error (internal: the catalogue's text and an errorId)", async () => {
    const { request } = await host.invoke("notebook", "fail", headerCaller("u1"), { input: null });
    const { record, events } = await settle(host, request.id);
    expect(record.status).toBe("failed");
    // Issue 22: an application's Error is the server's; its message goes to the log only.
    expect(record.error).toEqual({
      code: "internal-error",
      message: "An unexpected error occurred.",
      retryable: false,
      errorId: expect.any(String),
    });
    expect(events.at(-1)!.type).toBe("request.failed");
    expect(events.at(-1)!.data).toEqual({ error: record.error });
  });

  it("abort stops a running request through its AbortSignal; a finished one answers request-finished", async () => {
    const { request } = await host.invoke("notebook", "waitForAbort", headerCaller("u1"), { input: null });
    for (let i = 0; i < 100 && !host.requests.isRunningHere(request.id); i++)
      await new Promise((r) => setTimeout(r, 5));
    const aborted = await host.abortRequest(request.id, headerCaller("u1"));
    expect(aborted.status).toBe("aborted");
    const { record, events } = await settle(host, request.id);
    expect(record.status).toBe("aborted");
    expect(events.filter((e) => e.type.startsWith("request.") && e.type !== "request.started")).toHaveLength(
      1,
    );
    const again = await rejection(host.abortRequest(request.id, headerCaller("u1")));
    expect(again.code).toBe("request-finished");
    expect(await host.stores.requests.readEvents(request.id, 0)).toEqual(events);
  });

  it("retry re-runs a finished request with the same input", async () => {
    const { request, session } = await host.invoke("notebook", "addNote", headerCaller("u1"), {
      input: { key: "a", title: "x" },
    });
    await settle(host, request.id);
    const retried = await host.retryRequest(request.id, headerCaller("u1"));
    expect(retried.id).not.toBe(request.id);
    expect(retried.input).toEqual({ key: "a", title: "x" });
    expect(retried.metadata).toMatchObject({ origin: "retry", retryOf: request.id });
    const { record } = await settle(host, retried.id);
    // The same key again: the collection refuses a second create, so the retry fails on its own terms.
    expect(record.status).toBe("failed");
    expect(record.sessionId).toBe(session.id);
  });

  it("another user reading a session or request gets 403; the owner gets it", async () => {
    const { request, session } = await host.invoke("notebook", "addNote", headerCaller("u1"), {
      input: { key: "a", title: "x" },
    });
    await settle(host, request.id);
    expect((await host.getSession(session.id, headerCaller("u1"))).id).toBe(session.id);
    expect((await rejection(host.getSession(session.id, headerCaller("u2")))).code).toBe("forbidden");
    expect((await rejection(host.getSession(session.id, headerCaller()))).code).toBe("unauthorized");
    expect((await rejection(host.getRequest(request.id, headerCaller("u2")))).code).toBe("forbidden");
    expect((await host.getRequest(request.id, headerCaller("u1"))).status).toBe("completed");
  });

  it("the session's bound org holds on addressed routes too: the same user naming another org gets OrgBindingMismatchError", async () => {
    const o1 = headerCaller("u1", { "x-org": "o1" });
    const { request, session } = await host.invoke("notebook", "addNote", o1, {
      input: { key: "a", title: "x" },
    });
    await settle(host, request.id);
    for (const caller of [headerCaller("u1", { "x-org": "o2" })]) {
      for (const refused of [
        () => host.getSession(session.id, caller),
        () => host.snapshot(session.id, caller),
        () => host.listChildren(session.id, caller),
        () => host.resourceApi(session.id, caller),
        () => host.getRequest(request.id, caller),
        () => host.abortRequest(request.id, caller),
        () => host.retryRequest(request.id, caller),
        () => host.createSession("notebook", caller, { parentSessionId: session.id }),
      ]) {
        expect((await rejection(refused())).code).toBe("org-binding-mismatch");
      }
    }
    // Naming no org contradicts nothing on these routes (a resolver may take the org from an action's body,
    // which they do not have); a child session, bound to the caller's org, still needs the parent's.
    const noOrg = headerCaller("u1");
    expect((await host.getSession(session.id, noOrg)).id).toBe(session.id);
    expect((await host.getRequest(request.id, noOrg)).id).toBe(request.id);
    expect(
      (await rejection(host.createSession("notebook", noOrg, { parentSessionId: session.id }))).code,
    ).toBe("org-binding-mismatch");
    // Another user is still "forbidden" first, whatever the org; the owner in the bound org passes.
    expect((await rejection(host.getSession(session.id, headerCaller("u2", { "x-org": "o2" })))).code).toBe(
      "forbidden",
    );
    expect((await host.snapshot(session.id, o1)).clientData.session).toEqual({ added: 1 });
    expect((await allRequests(host)).map((r) => r.id)).toEqual([request.id]);
    expect((await host.stores.sessions.list({})).total).toBe(1);
  });
});

describe("open mode and listings", () => {
  const noop = handler({ name: "noop", execute: async () => "ok" });
  const open = defineFlow({ kind: "open", actions: { noop: { block: noop } } });

  it("without any resolver an action naming a session but no userId is 401, as without the session", async () => {
    await withHost({ flows: [open] }, async (host) => {
      const session = await host.createSession("open", { source: "http" }, { userId: "bob" });
      const caller = { source: "http" as const };
      expect((await rejection(host.invoke("open", "noop", caller, { sessionId: session.id }))).code).toBe(
        "unauthorized",
      );
      expect((await rejection(host.invoke("open", "noop", caller, {}))).code).toBe("unauthorized");
      expect(await allRequests(host)).toEqual([]);
      expect((await host.stores.sessions.list({})).total).toBe(1);
      const { request } = await host.invoke("open", "noop", caller, { sessionId: session.id, userId: "bob" });
      expect((await settle(host, request.id)).record).toMatchObject({ status: "completed", userId: "bob" });
    });
  });

  it("a listing is never refused: an unidentified caller gets nothing; several userId values must all match", async () => {
    const shared = defineFlow({ kind: "shared", actions: { noop: { block: noop } } });
    // The header resolver as a host-level one (which takes a string userId).
    const resolvePrincipal = async (c: PrincipalResolutionContext) => {
      const { userId } = await headerResolver(c);
      return typeof userId === "string" ? { userId } : null;
    };
    await withHost({ flows: [shared], resolvePrincipal }, async (host) => {
      const mine = await host.createSession("shared", headerCaller("u1"));
      for (const caller of [headerCaller(), headerCaller("throw"), headerCaller("teapot")]) {
        expect(await host.listSessions(caller)).toEqual([]);
        expect(await host.listActiveRequests(caller)).toEqual([]);
      }
      const ids = async (userId: string[]) =>
        (await host.listSessions(headerCaller("u1"), { userId })).map((s) => s.id);
      expect(await ids(["u1", "u1"])).toEqual([mine.id]);
      expect(await ids(["u1", "u2"])).toEqual([]);
      expect(await ids([])).toEqual([mine.id]);
    });
  });

  it("with a host resolver, a flow with its own resolver lists the rows of whom that resolver identifies (no defaultUserId), and no row of an org the caller contradicts", async () => {
    const header = (c: PrincipalResolutionContext, name: string) => {
      const value = c.request?.headers[name];
      return typeof value === "string" && value !== "" ? value : undefined;
    };
    const orgOf = (c: PrincipalResolutionContext) => header(c, "x-org");
    const governed = defineFlow({ kind: "governed", actions: { noop: { block: noop } } });
    // Partner API keys name their own users; a caller without a key is nobody there, whatever the host says.
    const partner = defineFlow({
      kind: "partner",
      authentication: {
        resolvePrincipal: (c) => {
          const key = header(c, "x-partner-key");
          return key ? { userId: key.replace("key-", "") } : null;
        },
        defaultUserId: "u1",
      },
      actions: { noop: { block: noop } },
    });
    const resolvePrincipal = (c: PrincipalResolutionContext) => {
      const userId = header(c, "x-user");
      if (!userId) return null;
      const orgId = orgOf(c);
      return orgId ? { userId, orgId } : { userId };
    };
    await withHost({ flows: [governed, partner], resolvePrincipal }, async (host) => {
      const caller = (headers: Record<string, string>) => ({
        source: "http" as const,
        request: { method: "GET", url: "/", headers, cookies: {} },
      });
      const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
      const home = await host.createSession("governed", caller({ "x-user": "u1" }));
      await tick();
      const deal = await host.createSession("partner", caller({ "x-partner-key": "key-u1" }));
      await tick();
      const inO2 = await host.createSession("governed", caller({ "x-user": "u1", "x-org": "o2" }));
      const ids = async (headers: Record<string, string>) =>
        (await host.listSessions(caller(headers))).map((session) => session.id).sort();
      // The host's u1 is not the partner's u1 without the partner's key (and defaultUserId names nobody here).
      expect(await ids({ "x-user": "u1" })).toEqual([home.id, inO2.id].sort());
      expect(await ids({ "x-user": "u1", "x-partner-key": "key-u1" })).toEqual(
        [home.id, inO2.id, deal.id].sort(),
      );
      expect(await ids({ "x-partner-key": "key-u1" })).toEqual([deal.id]);
      // One list across the flows' groups, the most recent first.
      expect(
        (await host.listSessions(caller({ "x-user": "u1", "x-partner-key": "key-u1" }))).map((s) => s.id),
      ).toEqual([inO2.id, deal.id, home.id]);
      // Acting in org o1, the caller's sessions bound to o2 or to no org are ones their reads would refuse.
      expect(await ids({ "x-user": "u1", "x-org": "o1" })).toEqual([]);
      expect(await host.getSession(inO2.id, caller({ "x-user": "u1", "x-org": "o2" }))).toMatchObject({
        orgId: "o2",
      });
      await expect(host.getSession(home.id, caller({ "x-user": "u1", "x-org": "o1" }))).rejects.toMatchObject(
        {
          code: "org-binding-mismatch",
        },
      );
      expect(await ids({ "x-user": "u1", "x-org": "o2" })).toEqual([inO2.id]);
    });
  });
});

describe("instance ownership", () => {
  const open = defineFlow({
    kind: "open",
    authentication: { requireUser: false, defaultUserId: "dev" },
    actions: { noop: { block: handler({ name: "noop", execute: async () => "ok" }) } },
  });
  const a = open.instance({ id: "open-a" });
  const b = open.instance({ id: "open-b" });

  it("another instance's session is 409 wrong-instance-session before any resolver runs", async () => {
    let resolverCalls = 0;
    const guarded = defineFlow({
      kind: "guarded",
      authentication: {
        resolvePrincipal: () => {
          resolverCalls++;
          return { userId: "u1" };
        },
      },
      actions: { noop: { block: handler({ name: "noop2", execute: async () => "ok" }) } },
    });
    const g1 = guarded.instance({ id: "g1" });
    const g2 = guarded.instance({ id: "g2" });
    await withHost({ flows: [g1, g2] }, async (host) => {
      const session = await host.createSession("g1", headerCaller("u1"));
      resolverCalls = 0;
      const error = await rejection(host.invoke("g2", "noop", headerCaller("u1"), { sessionId: session.id }));
      expect(error.code).toBe("wrong-instance-session");
      expect(resolverCalls).toBe(0);
      expect(await allRequests(host)).toEqual([]);
      expect((await host.stores.sessions.list({})).total).toBe(1);
    });
  });

  it("a session with no recorded owner is its kind's only instance's, and migration-required with several", async () => {
    const [factory] = storeFactories;
    const made = await factory!.create();
    const now = new Date().toISOString();
    await made.stores.sessions.create({
      id: "legacy",
      flowId: null,
      flowKind: "open",
      userId: "dev",
      rootSessionId: "legacy",
      metadata: {},
      createdAt: now,
    });
    const single = createFlowHost({
      flows: [open],
      stores: made.stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
    });
    await single.start();
    const { request } = await single.invoke("open", "noop", { source: "http" }, { sessionId: "legacy" });
    expect((await settle(single, request.id)).record.status).toBe("completed");
    await single.close();

    const several = createFlowHost({
      flows: [a, b],
      stores: made.stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
    });
    await several.start();
    const error = await rejection(
      several.invoke("open-a", "noop", { source: "http" }, { sessionId: "legacy" }),
    );
    expect(error.code).toBe("migration-required");
    expect((await allRequests(several)).map((r) => r.id)).toEqual([request.id]);
    expect((await several.stores.sessions.list({})).total).toBe(1);
    await several.close();
    await made.destroy();
  });

  it("requireUser: false stamps defaultUserId on the request record", async () => {
    await withHost({ flows: [open] }, async (host) => {
      const { request } = await host.invoke("open", "noop", { source: "http" }, {});
      expect(request.userId).toBe("dev");
      await settle(host, request.id);
    });
  });

  it("startup fails when a flow declares a webhook provider the host did not configure", async () => {
    const hooked = defineFlow({
      kind: "hooked",
      authentication: { requireUser: false, defaultUserId: "svc" },
      webhooks: {
        stripe: { on: { "invoice.paid": { block: handler({ name: "paid", execute: async () => 1 }) } } },
      },
    });
    const [factory] = storeFactories;
    const made = await factory!.create();
    const host = createFlowHost({ flows: [hooked], stores: made.stores, logger: silentLogger });
    const error = await rejection(host.start());
    expect(hasErrorCode(error, "webhook-provider-not-configured")).toBe(true);
    expect(error.message).toContain("stripe");
    await made.destroy();
  });
});

describe("resolver choice", () => {
  it("the flow's own resolver wins; a flow without one uses the host's; defaultUserId fills a null result", async () => {
    const noop = handler({ name: "who", execute: async (_i, ctx) => ctx.principal.userId });
    const own = defineFlow({
      kind: "own",
      authentication: { resolvePrincipal: () => ({ userId: "from-flow" }) },
      actions: { who: { block: noop } },
    });
    const hosted = defineFlow({ kind: "hosted", actions: { who: { block: noop } } });
    const fallback = defineFlow({
      kind: "fallback",
      authentication: { resolvePrincipal: () => null, defaultUserId: "default-user" },
      actions: { who: { block: noop } },
    });
    const options = { flows: [own, hosted, fallback], resolvePrincipal: () => ({ userId: "from-host" }) };
    await withHost(options, async (host) => {
      for (const [flowId, expected] of [
        ["own", "from-flow"],
        ["hosted", "from-host"],
        ["fallback", "default-user"],
      ] as const) {
        const { request } = await host.invoke(flowId, "who", headerCaller(), {});
        expect((await settle(host, request.id)).record.output).toBe(expected);
      }
    });
  });
});

describe("action input", () => {
  it("a call without input reaches a block whose schema accepts an absent input", async () => {
    const optional = handler({
      name: "optional",
      inputSchema: z.object({ n: z.number() }).optional(),
      execute: async (input) => input?.n ?? "none",
    });
    const flow = defineFlow({
      kind: "inputs",
      authentication: { requireUser: false, defaultUserId: "dev" },
      actions: { optional },
    });
    await withHost({ flows: [flow] }, async (host) => {
      const { request } = await host.invoke("inputs", "optional", { source: "test" }, {});
      expect((await settle(host, request.id)).record).toMatchObject({ status: "completed", output: "none" });
    });
  });
});

describe("tenant ownership", () => {
  it("the same user id from another tenant is refused on the session and on its requests", async () => {
    const tenanted = defineFlow({
      kind: "tenanted",
      authentication: {
        resolvePrincipal: (c) => ({ userId: "u1", tenantId: c.request?.headers["x-tenant"] }),
      },
      actions: { noop: { block: handler({ name: "noop3", execute: async () => "ok" }) } },
    });
    await withHost({ flows: [tenanted] }, async (host) => {
      const t1 = headerCaller(undefined, { "x-tenant": "t1" });
      const t2 = headerCaller(undefined, { "x-tenant": "t2" });
      const { request, session } = await host.invoke("tenanted", "noop", t1, {});
      await settle(host, request.id);
      expect((await host.getRequest(request.id, t1)).status).toBe("completed");
      expect((await rejection(host.getSession(session.id, t2))).code).toBe("forbidden");
      expect((await rejection(host.getRequest(request.id, t2))).code).toBe("forbidden");
      expect((await rejection(host.retryRequest(request.id, t2))).code).toBe("forbidden");
      // Nor can it run an action in that session: the action route checks the owner as the others do.
      const before = (await host.stores.requests.listByStatus(["queued", "running", "completed", "failed"]))
        .length;
      expect((await rejection(host.invoke("tenanted", "noop", t2, { sessionId: session.id }))).code).toBe(
        "forbidden",
      );
      expect(
        (await host.stores.requests.listByStatus(["queued", "running", "completed", "failed"])).length,
      ).toBe(before);
    });
  });
});

describe("webhook provider check", () => {
  it("a provider named like an Object.prototype member is still unconfigured", async () => {
    const sneaky = defineFlow({
      kind: "sneaky",
      authentication: { requireUser: false, defaultUserId: "svc" },
      webhooks: { toString: { on: {} } },
    });
    const [factory] = storeFactories;
    const made = await factory!.create();
    const host = createFlowHost({ flows: [sneaky], stores: made.stores, logger: silentLogger });
    const error = await rejection(host.start());
    expect(error.code).toBe("webhook-provider-not-configured");
    await made.destroy();
  });
});

describe("ctx.log in a block", () => {
  it("is callable (at the info level, like a collection hook's ctx.log(message)) and has one method per level, every line stamped with the request", async () => {
    const { logger, lines: recorded } = recordingLogger();
    const logging = handler({
      name: "logging",
      execute: async (_input, ctx) => {
        ctx.log("plain", { n: 1 });
        ctx.log.warn("careful");
        return "ok";
      },
    });
    const flow = defineFlow({
      kind: "logging",
      authentication: { requireUser: false, defaultUserId: "u1" },
      actions: { logging },
    });
    await withHost(
      {
        flows: [flow],
        logger,
      },
      async (host) => {
        const { request } = await host.invoke("logging", "logging", headerCaller(), { input: null });
        expect((await settle(host, request.id)).record.status).toBe("completed");
        const lines = recorded.map((line) => [line.level, line.msg, line.fields]);
        expect(lines.filter(([, message]) => message === "plain" || message === "careful")).toEqual([
          ["info", "plain", { requestId: request.id, flowId: "logging", n: 1 }],
          ["warn", "careful", { requestId: request.id, flowId: "logging" }],
        ]);
      },
    );
  });
});

describe("a client-visible resource rendered through a template the model may rewrite", () => {
  it("is told to the logger when the host is made, naming the flow, the resource and the template", () => {
    const warnings: string[] = [];
    const template = defineResource({ scope: "session", content: "{{ title }}", llmWritable: true });
    const fixed = defineResource({ scope: "session", content: "{{ title }}" });
    const state = z.object({ title: z.string().default(""), secret: z.string().default("") });
    const card = defineResource({
      scope: "session",
      stateSchema: state,
      contentTemplateRef: template,
      client: { exclude: ["secret"], content: { read: true } },
    });
    const safe = defineResource({
      scope: "session",
      stateSchema: state,
      contentTemplateRef: fixed,
      client: { exclude: ["secret"], content: { read: true } },
    });
    const flow = defineFlow({
      kind: "cards",
      authentication: { requireUser: false, defaultUserId: "u1" },
      resources: { template, fixed, card, safe },
    });
    createFlowHost({
      flows: [flow],
      stores: createMemoryStores(),
      logger: {
        ...silentLogger,
        warn: (d: object | string, m?: string) => void warnings.push(typeof d === "string" ? d : m!),
      },
    });
    expect(warnings).toEqual([
      'Flow "cards": resource "card" renders its content for clients through contentTemplateRef "template", which the model may rewrite (llmWritable). A template sees the whole state, so a rewritten one can show clients fields the projection hides.',
    ]);
  });
});

describe("the resolver on session creation", () => {
  it("is told the session id the caller chose (envelope.sessionId), and no body", async () => {
    const seen: PrincipalResolutionContext[] = [];
    const flow = defineFlow({
      kind: "chosen",
      authentication: {
        resolvePrincipal: (context) => {
          seen.push(context);
          return { userId: "u1" };
        },
      },
      actions: { noop: { block: handler({ name: "noop", execute: async () => null }) } },
    });
    await withHost({ flows: [flow] }, async (host) => {
      await host.createSession("chosen", { source: "http" }, { sessionId: "chosen-1" });
      await host.createSession("chosen", { source: "http" }, {});
      expect(seen.map((context) => context.envelope.sessionId)).toEqual(["chosen-1", undefined]);
      expect(seen.map((context) => context.envelope.metadata.body)).toEqual([undefined, undefined]);
    });
  });
});
