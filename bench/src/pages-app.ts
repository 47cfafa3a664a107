/**
 * The host the `pages` benchmark serves: one flow with the `items` collection (pattern `items/*`, session scope,
 * state `{ title, n }`, state readable by the client), on whichever stores it is given, behind `createFlowRouter`.
 * The resolver trusts `x-user-id`, so the collection route runs the owner check as a real deployment would. The
 * session's items are not written through the host: `pages-populate.ts` loads them straight into the store.
 */
import { defineFlow, defineResourceCollection, type FlowStores, type PrincipalResolver } from "@flowrt/core";
import { createFlowHost, type FlowHost, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express, { type Express } from "express";
import { BENCH_USER, COLLECTION, FLOW_ID, itemStateSchema, USER_HEADER } from "./http-fixture.js";

/** The session whose collection the benchmark pages through. */
export const PAGES_SESSION = "pages";

const items = defineResourceCollection({
  pattern: "items/*",
  scope: "session",
  stateSchema: itemStateSchema,
  client: { state: { read: true } },
});

const pagesFlow = defineFlow({ kind: FLOW_ID, resources: { [COLLECTION]: items } });

const headerResolver: PrincipalResolver = (context) => {
  const value = context.request?.headers[USER_HEADER];
  return typeof value === "string" && value !== "" ? { userId: value } : null;
};

export interface PagesApp {
  app: Express;
  host: FlowHost;
  /** Where the session's items live in the store (session scope, shared bucket). */
  address: { scope: "session"; scopeId: string; bucket: "shared" };
}

/** Starts a host on `stores` and creates the benchmark's session, owned by {@link BENCH_USER}. */
export async function createPagesApp(stores: FlowStores): Promise<PagesApp> {
  const host = createFlowHost({
    flows: [pagesFlow],
    stores,
    resolvePrincipal: headerResolver,
    logger: silentLogger,
    retention: false,
  });
  await host.start();
  const session = await host.createSession(
    FLOW_ID,
    { source: "bench", principal: { userId: BENCH_USER } },
    { sessionId: PAGES_SESSION },
  );
  const app = express();
  app.disable("x-powered-by");
  app.use(createFlowRouter(host));
  return { app, host, address: { scope: "session", scopeId: session.id, bucket: "shared" } };
}
