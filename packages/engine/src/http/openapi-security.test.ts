import { defineFlow, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { createFlowHost } from "../host.js";
import type { FlowHostOptions } from "../host-options.js";
import { withHost } from "../testing/fixtures.js";
import { openApiAppDocument } from "../testing/openapi-app.js";
import { createHttpHandler } from "./handler.js";

type Operation = { operationId: string; security: object[]; description?: string };
type Doc = {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, object> };
};

const ping = handler({ name: "ping", execute: async () => "pong" });
const resolvePrincipal = async () => ({ userId: "ada" });
const guarded = defineFlow({ kind: "guarded", authentication: { resolvePrincipal }, actions: { ping } });

async function documentOf(options: Omit<FlowHostOptions, "stores">): Promise<Doc> {
  return withHost(options, async (host) => {
    const answer = await createHttpHandler(host)({
      method: "GET",
      path: "/openapi.json",
      url: "/api/flows/openapi.json",
      query: {},
      headers: {},
    });
    return answer.body as Doc;
  });
}

const byId = (doc: Doc) =>
  Object.fromEntries(
    Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => [op.operationId, op])),
  ) as Record<string, Operation>;

describe("security in the OpenAPI document: how the resolver reads credentials", () => {
  it("says bearer by default, on the routes that run the resolver, and nothing on probes, discovery and the manifest", async () => {
    const doc = await documentOf({ flows: [guarded] });
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: { type: "http", scheme: "bearer" } });
    const ops = byId(doc);
    for (const id of [
      "runGuardedPing",
      "createGuardedSession",
      "getSession",
      "getRequest",
      "readItem",
      "abortRequest",
    ])
      expect(ops[id]!.security, id).toEqual([{ bearerAuth: [] }]);
    // Listings never refuse: an unidentified caller gets an empty list.
    for (const id of ["listSessions", "listActiveRequests"])
      expect(ops[id]!.security, id).toEqual([{ bearerAuth: [] }, {}]);
    for (const id of ["getLiveness", "getReadiness", "listFlows", "getOpenApiDocument", "getSessionManifest"])
      expect(ops[id]!.security, id).toEqual([]);
  });

  it("takes the schemes of the openapi option (any one of them), named for a generated client", async () => {
    const doc = await documentOf({
      flows: [guarded],
      openapi: {
        security: [
          { type: "apiKey", in: "header", name: "x-api-key" },
          { type: "apiKey", in: "cookie", name: "sid", description: "The web page's session." },
          { type: "http", scheme: "Basic" },
        ],
      },
    });
    expect(doc.components.securitySchemes).toEqual({
      "header.x-api-key": { type: "apiKey", in: "header", name: "x-api-key" },
      "cookie.sid": { type: "apiKey", in: "cookie", name: "sid", description: "The web page's session." },
      basicAuth: { type: "http", scheme: "basic" },
    });
    expect(byId(doc).runGuardedPing!.security).toEqual([
      { "header.x-api-key": [] },
      { "cookie.sid": [] },
      { basicAuth: [] },
    ]);
  });

  it("follows each flow's authentication: optional without requireUser, none without a resolver; addressed routes as strict as all flows agree", async () => {
    const lenient = defineFlow({
      kind: "lenient",
      authentication: { resolvePrincipal, requireUser: false, defaultUserId: "anon" },
      actions: { ping },
    });
    const open = defineFlow({ kind: "open", actions: { ping } });
    const ops = byId(await documentOf({ flows: [guarded, lenient, open] }));
    expect(ops.runGuardedPing!.security).toEqual([{ bearerAuth: [] }]);
    expect(ops.runLenientPing!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(ops.runOpenPing!.security).toEqual([]);
    expect(ops.createOpenSession!.security).toEqual([]);
    // A session of any of them: the credential is optional (the open flow's sessions need none).
    expect(ops.getSession!.security).toEqual([{ bearerAuth: [] }, {}]);
    // No flow has a resolver: no credential anywhere, and no scheme listed (a linter calls an unused one an error).
    const unsecured = await documentOf({ flows: [open] });
    expect(byId(unsecured).getSession!.security).toEqual([]);
    expect(unsecured.components.securitySchemes).toBeUndefined();
  });

  it("describes a webhook's signature instead of a credential", async () => {
    const doc = (await openApiAppDocument()) as Doc;
    const webhook = doc.paths["/payments/webhooks/stripe"]!.post!;
    expect(webhook.operationId).toBe("receivePaymentsStripeWebhook");
    expect(webhook.security).toEqual([]);
    expect(webhook.description).toContain("webhookProviders.stripe.verify");
  });

  it("an empty list documents no scheme and no credential", async () => {
    const doc = await documentOf({ flows: [guarded], openapi: { security: [] } });
    expect(doc.components.securitySchemes).toBeUndefined();
    for (const op of Object.values(byId(doc))) expect(op.security, op.operationId).toEqual([]);
  });

  it("merges the info option into the document's info", async () => {
    const doc = await documentOf({
      flows: [guarded],
      openapi: { info: { title: "Notes", version: "2.0.0", license: { name: "MIT", identifier: "MIT" } } },
    });
    expect(doc.info).toMatchObject({
      title: "Notes",
      version: "2.0.0",
      license: { name: "MIT", identifier: "MIT" },
    });
  });

  it("refuses a malformed option when the host is created, naming the entry", () => {
    const stores = createMemoryStores();
    const make = (openapi: unknown) => () =>
      createFlowHost({
        flows: [guarded],
        stores,
        logger: false,
        openapi: openapi as FlowHostOptions["openapi"],
      });
    expect(make({ security: [{ type: "apiKey", in: "header" }] })).toThrow(
      /openapi\.security\[0\]\.name must name the header/,
    );
    expect(make({ security: [{ type: "apiKey", in: "body", name: "k" }] })).toThrow(
      /security\[0\]\.in must be/,
    );
    expect(make({ security: [{ type: "oauth2" }] })).toThrow(
      /security\[0\]\.type must be "http" or "apiKey"/,
    );
    expect(
      make({
        security: [
          { type: "http", scheme: "bearer" },
          { type: "http", scheme: "Bearer" },
        ],
      }),
    ).toThrow(/security\[1\] repeats the scheme "bearerAuth"/);
    expect(make({ security: [{ type: "http", scheme: "basic", bearerFormat: "JWT" }] })).toThrow(
      /bearerFormat/,
    );
    expect(make({ security: "bearer" })).toThrow(/openapi\.security must be an array/);
  });
});
