import { describe, expect, it } from "vitest";
import { z } from "zod";
import { handler } from "../blocks/handler.js";
import { definitionError } from "../blocks/testing/definition-error.js";
import { DEFINITION_KIND } from "../brand.js";
import { defineResourceCollection } from "../resources/index.js";
import { defineFlow, isFlowDefinition } from "./define-flow.js";
import { RESERVED_FLOW_IDS } from "./path-segment.js";

const ping = handler({ name: "ping", execute: () => "pong" });

describe("defineFlow", () => {
  it("returns a frozen, branded definition with every option normalized", () => {
    const flow = defineFlow({ kind: "chat", actions: { ping } });
    expect(Object.isFrozen(flow)).toBe(true);
    expect(flow[DEFINITION_KIND]).toBe("flow");
    expect(isFlowDefinition(flow)).toBe(true);
    expect(isFlowDefinition(ping)).toBe(false);
    expect(flow).toMatchObject({
      kind: "chat",
      id: "chat",
      instanceOf: undefined,
      resources: {},
      webhooks: {},
      isolateUserState: false,
      isolateOrgState: false,
      session: { stateSchema: undefined, client: undefined },
      authentication: {
        resolvePrincipal: undefined,
        requireUser: true,
        defaultUserId: undefined,
        requireOrg: false,
      },
    });
    expect(flow.actions.ping).toEqual({
      name: "ping",
      block: ping,
      description: undefined,
      durable: false,
      tokenBudget: undefined,
      onCompleted: undefined,
      onErrored: undefined,
    });
  });

  it("accepts an action config with execution policy", () => {
    const onCompleted = () => {};
    const flow = defineFlow({
      kind: "chat",
      actions: {
        ping: { block: ping, durable: true, tokenBudget: 1000, onCompleted, description: "Ping it" },
      },
    });
    expect(flow.actions.ping).toMatchObject({
      durable: true,
      tokenBudget: 1000,
      onCompleted,
      description: "Ping it",
    });
  });

  it("requires a URL-safe kind that is not a reserved path word", () => {
    expect(definitionError(() => defineFlow({ kind: "" })).message).toMatch(
      /"kind" must be a non-empty string/,
    );
    expect(definitionError(() => defineFlow({ kind: "a/b" })).message).toMatch(/"kind"/);
    expect(definitionError(() => defineFlow({ kind: ".." })).message).toMatch(/not "\." or "\.\."/);
    for (const word of RESERVED_FLOW_IDS) {
      expect(definitionError(() => defineFlow({ kind: word })).message).toMatch(/reserved path word/);
    }
  });

  it("checks action names and entries", () => {
    expect(definitionError(() => defineFlow({ kind: "f", actions: { "add note": ping } })).message).toMatch(
      /action name must be a non-empty string/,
    );
    expect(definitionError(() => defineFlow({ kind: "f", actions: { a: {} as never } })).message).toMatch(
      /action "a": "block" must be a block/,
    );
    expect(definitionError(() => defineFlow({ kind: "f", actions: { a: "ping" as never } })).message).toMatch(
      /action "a": expected an options object/,
    );
    expect(
      definitionError(() =>
        defineFlow({ kind: "f", actions: { a: { block: ping, durable: "yes" as never } } }),
      ).message,
    ).toMatch(/"durable" must be a boolean/);
    expect(
      definitionError(() => defineFlow({ kind: "f", actions: { a: { block: ping, tokenBudget: 0 } } }))
        .message,
    ).toMatch(/"tokenBudget" must be a positive integer/);
    expect(
      definitionError(() => defineFlow({ kind: "f", actions: { a: { block: ping, onErrored: 1 as never } } }))
        .message,
    ).toMatch(/"onErrored" must be a function/);
  });

  it("checks flow-level resources", () => {
    expect(
      definitionError(() => defineFlow({ kind: "f", resources: { notes: {} as never } })).message,
    ).toMatch(/Flow "f": resource "notes" must be a resource definition/);
  });

  it("checks the flags", () => {
    expect(definitionError(() => defineFlow({ kind: "f", isolateUserState: 1 as never })).message).toMatch(
      /"isolateUserState" must be a boolean/,
    );
  });
});

describe("unknown options", () => {
  it("are refused at every level of a flow definition, naming the option", () => {
    const stateSchema = z.object({ n: z.number().default(0) });
    const cases: [object, RegExp][] = [
      [{ kind: "f", action: {} }, /Flow "f": "action" is not an option here/],
      [
        { kind: "f", actions: { a: { block: ping, durabel: true } } },
        /action "a": "durabel" is not an option/,
      ],
      [{ kind: "f", session: { schema: stateSchema } }, /Flow "f" session: "schema" is not an option/],
      [
        { kind: "f", session: { stateSchema, client: { exclude: ["n"] } } },
        /session client: "exclude" is not an option/,
      ],
      [
        { kind: "f", authentication: { requireuser: false } },
        /authentication: "requireuser" is not an option/,
      ],
      [{ kind: "f", webhooks: { gh: { on: {}, events: {} } } }, /webhook "gh": "events" is not an option/],
      [
        { kind: "f", webhooks: { gh: { on: { push: { block: ping, filter: () => true } } } } },
        /"filter" is not an option/,
      ],
    ];
    for (const [options, message] of cases) {
      expect(definitionError(() => defineFlow(options as never)).message).toMatch(message);
    }
    const flow = defineFlow({ kind: "f" });
    expect(definitionError(() => flow.instance({ id: "g", kind: "x" } as never)).message).toMatch(
      /"kind" is not an option/,
    );
  });
});

describe("flow.instance", () => {
  const flow = defineFlow({ kind: "support", actions: { ping } });

  it("returns a same-branded copy with its own id, instanceOf the kind", () => {
    const eu = flow.instance({ id: "support-eu" });
    expect(isFlowDefinition(eu)).toBe(true);
    expect(Object.isFrozen(eu)).toBe(true);
    expect(eu).toMatchObject({ kind: "support", id: "support-eu", instanceOf: "support" });
    expect(eu.actions).toBe(flow.actions);
    expect(flow.id).toBe("support");
    expect(eu.instance({ id: "support-us" })).toMatchObject({ id: "support-us", instanceOf: "support" });
  });

  it("requires a URL-safe, non-reserved id", () => {
    expect(definitionError(() => flow.instance({ id: "" })).message).toMatch(
      /instance\(\): "id" must be a non-empty/,
    );
    expect(definitionError(() => flow.instance({ id: "eu west" })).message).toMatch(/"id"/);
    expect(definitionError(() => flow.instance({ id: "sessions" })).message).toMatch(/reserved path word/);
    expect(definitionError(() => flow.instance(undefined as never)).message).toMatch(
      /expected an options object/,
    );
  });
});

describe("scope configs", () => {
  const stateSchema = z.object({ added: z.number().default(0), secret: z.string().default("") });

  it("keeps exposed fields and derived values", () => {
    const derived = { doubled: (s: { added: number }) => s.added * 2 };
    const flow = defineFlow({ kind: "f", session: { stateSchema, client: { expose: ["added"], derived } } });
    expect(flow.session.stateSchema).toBe(stateSchema);
    expect(flow.session.client).toEqual({ expose: ["added"], derived });
    expect(flow.user).toEqual({ stateSchema: undefined, client: undefined });
  });

  it("refuses an exposed field that is not in the schema, naming flow, scope and field", () => {
    const error = definitionError(() =>
      defineFlow({ kind: "f", org: { stateSchema, client: { expose: ["missing" as never] } } }),
    );
    expect(error.message).toMatch(
      /Flow "f" org client exposes "missing", which is not a field of its org stateSchema/,
    );
    expect(error.details).toEqual({ flow: "f", scope: "org", field: "missing" });
  });

  it("refuses exposing fields without an object schema to check them against", () => {
    expect(
      definitionError(() => defineFlow({ kind: "f", session: { client: { expose: ["a" as never] } } }))
        .message,
    ).toMatch(/session client exposes "a" but declares no session stateSchema/);
    const union = z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]);
    expect(
      definitionError(() =>
        defineFlow({ kind: "f", session: { stateSchema: union, client: { expose: ["a" as never] } } }),
      ).message,
    ).toMatch(/needs an object stateSchema/);
  });

  it("checks stateSchema, expose and derived shapes", () => {
    expect(
      definitionError(() => defineFlow({ kind: "f", user: { stateSchema: {} as never } })).message,
    ).toMatch(/Flow "f" user: "stateSchema" must be a zod schema/);
    expect(
      definitionError(() =>
        defineFlow({ kind: "f", session: { stateSchema, client: { expose: "added" as never } } }),
      ).message,
    ).toMatch(/"client.expose" must be an array/);
    expect(
      definitionError(() =>
        defineFlow({ kind: "f", session: { stateSchema, client: { derived: { x: 1 as never } } } }),
      ).message,
    ).toMatch(/"client.derived.x" must be a function/);
    expect(
      definitionError(() =>
        defineFlow({
          kind: "f",
          session: { stateSchema, client: { expose: ["added"], derived: { added: () => 1 } } },
        }),
      ).message,
    ).toMatch(/"added" is both exposed and derived/);
  });
});

describe("authentication", () => {
  it("defaults requireUser to true and keeps the resolver", () => {
    const resolvePrincipal = () => ({ userId: "u" });
    const flow = defineFlow({ kind: "f", authentication: { resolvePrincipal, defaultUserId: "anon" } });
    expect(flow.authentication).toEqual({
      resolvePrincipal,
      requireUser: true,
      defaultUserId: "anon",
      requireOrg: false,
    });
  });

  it("checks the option shapes", () => {
    expect(definitionError(() => defineFlow({ kind: "f", authentication: "x" as never })).message).toMatch(
      /"authentication" must be an object/,
    );
    expect(
      definitionError(() => defineFlow({ kind: "f", authentication: { resolvePrincipal: "x" as never } }))
        .message,
    ).toMatch(/"resolvePrincipal" must be a function/);
    expect(
      definitionError(() => defineFlow({ kind: "f", authentication: { defaultUserId: "" } })).message,
    ).toMatch(/"defaultUserId" must be a non-empty string/);
    expect(
      definitionError(() => defineFlow({ kind: "f", authentication: { requireUser: 0 as never } })).message,
    ).toMatch(/"requireUser" must be a boolean/);
  });
});

describe("webhooks", () => {
  const notes = defineResourceCollection({ pattern: "notes/*", scope: "session" });

  it("normalizes bindings with provider, event type and policy", () => {
    const when = () => true;
    const input = (e: { payload: unknown }) => e.payload;
    const flow = defineFlow({
      kind: "f",
      authentication: { requireUser: false, defaultUserId: "webhook" },
      resources: { notes },
      webhooks: { stripe: { on: { "invoice.paid": { block: ping, when, input, durable: true } } } },
    });
    expect(flow.webhooks.stripe?.on["invoice.paid"]).toEqual({
      provider: "stripe",
      eventType: "invoice.paid",
      block: ping,
      input,
      inputSchema: undefined,
      sessionId: undefined,
      when,
      durable: true,
      tokenBudget: undefined,
      onCompleted: undefined,
      onErrored: undefined,
    });
  });

  it("requires a block on every binding", () => {
    const error = definitionError(() =>
      defineFlow({ kind: "f", webhooks: { gh: { on: { push: {} as never } } } }),
    );
    expect(error.message).toMatch(/Flow "f" webhook "gh" event "push": "block" must be a block/);
  });

  it("checks provider names, the on map and binding functions", () => {
    expect(definitionError(() => defineFlow({ kind: "f", webhooks: { "a/b": { on: {} } } })).message).toMatch(
      /webhook provider name must be/,
    );
    expect(definitionError(() => defineFlow({ kind: "f", webhooks: { gh: {} as never } })).message).toMatch(
      /"on" must be an object/,
    );
    const bad = (binding: object) =>
      defineFlow({ kind: "f", webhooks: { gh: { on: { push: { block: ping, ...binding } } } } });
    expect(definitionError(() => bad({ when: true })).message).toMatch(/"when" must be a function/);
    expect(definitionError(() => bad({ when: async () => true })).message).toMatch(
      /"when" must be synchronous/,
    );
    expect(definitionError(() => bad({ input: {} })).message).toMatch(/"input" must be a function/);
    expect(definitionError(() => bad({ sessionId: "s" })).message).toMatch(/"sessionId" must be a function/);
    expect(definitionError(() => bad({ inputSchema: {} })).message).toMatch(
      /"inputSchema" must be a zod schema/,
    );
    expect(definitionError(() => bad({ tokenBudget: 2.5 })).message).toMatch(
      /"tokenBudget" must be a positive integer/,
    );
    expect(definitionError(() => bad({ onCompleted: 1 })).message).toMatch(
      /"onCompleted" must be a function/,
    );
  });
});
