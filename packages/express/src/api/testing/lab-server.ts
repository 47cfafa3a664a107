import type { AnyFlowDefinition, FlowStores, PrincipalResolver } from "@flowrt/core";
import type { WebhookProviderDefinition } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import request from "supertest";
import type { FlowRouterOptions } from "../../create-flow-router.js";
import { type Served, serve } from "../../testing/serve.js";
import { inbox, signedProvider } from "../../testing/webhook-flow.js";
import { API, eventually } from "./http.js";
import { lab, multiA, multiB, open, solo } from "./lab-flows.js";
import { type ResourceHooks, withResourceHooks } from "./store-hooks.js";

/** The signed test provider, plus the handshake the specification's 200 row describes. */
export const handshakeProvider: WebhookProviderDefinition = {
  ...signedProvider,
  acknowledge: (event) => {
    const payload = event.payload as { type?: string; challenge?: string };
    return payload.type === "url_verification" ? { challenge: payload.challenge ?? null } : null;
  },
};

export interface Lab extends Served {
  stores: FlowStores;
  /** Store hooks, empty until a test sets one. */
  hooks: ResourceHooks;
}

/**
 * A started host behind Express on an ephemeral port, on memory stores with hooks. By default it serves
 * `lab` (own resolver), `open` (no resolver), the two `multi` instances, `solo` and the `inbox` webhook flow.
 */
export async function serveLab(
  options: {
    flows?: AnyFlowDefinition[];
    resolvePrincipal?: PrincipalResolver;
    inspector?: boolean;
    router?: FlowRouterOptions;
  } = {},
): Promise<Lab> {
  const hooks: ResourceHooks = {};
  const stores = withResourceHooks(createMemoryStores(), hooks);
  const served = await serve(options.flows ?? [lab, open, multiA, multiB, solo, inbox], {
    host: {
      stores,
      inspector: options.inspector ?? true,
      webhookProviders: { signed: handshakeProvider },
      recoveryIntervalMs: 0,
      ...(options.resolvePrincipal ? { resolvePrincipal: options.resolvePrincipal } : {}),
    },
    ...(options.router ? { router: options.router } : {}),
  });
  return { ...served, stores, hooks };
}

/** Creates a session through the API; `headers` carry the credential, `body` e.g. `{ userId }`. */
export async function createSession(
  url: string,
  flowId: string,
  headers: Record<string, string> = {},
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await request(url).post(`${API}/${flowId}/sessions`).set(headers).send(body).expect(201);
  return res.body.session.id as string;
}

/** Starts an action through the API and returns its ids. */
export async function invoke(
  url: string,
  flowId: string,
  action: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ requestId: string; sessionId: string }> {
  const res = await request(url).post(`${API}/${flowId}/actions/${action}`).set(headers).send(body);
  if (res.status !== 202) throw new Error(`invoke ${flowId}/${action}: ${res.status} ${res.text}`);
  return res.body as { requestId: string; sessionId: string };
}

/** Waits (through the store) until a request has finished, and returns its record. */
export function finished(stores: FlowStores, requestId: string) {
  return eventually(async () => {
    const record = await stores.requests.get(requestId);
    return record && ["completed", "failed", "aborted"].includes(record.status) ? record : undefined;
  });
}

/** Waits until a request is running (its `request.started` event is written). */
export function running(stores: FlowStores, requestId: string) {
  return eventually(async () => {
    const events = await stores.requests.readEvents(requestId);
    return events.some((e) => e.type === "request.started") ? true : undefined;
  });
}
