import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import {
  defineFlow,
  defineResourceCollection,
  FlowError,
  handler,
  type PrincipalResolver,
  sequencer,
} from "@flowrt/core";
import { createFlowHost, type FlowHost } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import { createMemoryStores } from "@flowrt/store-memory";
import express from "express";
import { z } from "zod";
import { inspectorInbound } from "../inspector-inbound.js";

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { content: { read: true, create: true }, state: { read: true } },
});

const addNote = handler({
  name: "addNote",
  inputSchema: z.object({ key: z.string(), title: z.string() }),
  execute: async (input, ctx) => {
    const note = await ctx.resources.notes.create(input.key, { title: input.title });
    await note.writeContent(`# ${input.title}`);
    return { ok: true };
  },
});

const reserve = handler({ name: "reserve", execute: async () => ({ reserved: true }) });
const charge = handler({
  name: "chargeCard",
  execute: async () => {
    throw new FlowError("operation-not-permitted", "The card was declined.");
  },
});
const checkout = sequencer({ name: "checkout", steps: [reserve, charge] });

/** Waits until `gate` opens: a request that stays running while a test watches its stream. */
export function openGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

export function notebookFlow(gate?: Promise<void>) {
  const slow = handler({
    name: "slowStep",
    execute: async (_input, ctx) => {
      ctx.emit({ type: "progress", pct: 50 });
      await gate;
      return { done: true };
    },
  });
  return defineFlow({
    kind: "notebook",
    // Webhook deliveries carry no user: they run as `webhooks`.
    authentication: { requireUser: false, defaultUserId: "webhooks" },
    resources: { notes },
    actions: { addNote: { block: addNote }, checkout: { block: checkout }, slow: { block: slow } },
    webhooks: {
      demo: {
        on: {
          "note.created": {
            block: addNote,
            input: (event) => ({
              key: String(event.deliveryId),
              title: String((event.payload as { title?: unknown }).title),
            }),
            // Every delivery lands in one session, so a redelivery's `create` is refused (topic-exists).
            sessionId: () => "inbox",
          },
        },
      },
    },
  });
}

/** The shared secret the test's webhook provider checks (in constant time) on `x-demo-secret`. */
export const WEBHOOK_SECRET = "inspector-test-secret";

const demoProvider = {
  verify: (_raw: Uint8Array, headers: Record<string, string | string[] | undefined>) => {
    const given = Buffer.from(String(headers["x-demo-secret"] ?? ""));
    const expected = Buffer.from(WEBHOOK_SECRET);
    return given.length === expected.length && timingSafeEqual(given, expected);
  },
  eventType: (payload: unknown) => (payload as { type?: string }).type,
  deliveryId: (payload: unknown) => (payload as { id?: string }).id,
};

export interface InspectorServer {
  host: FlowHost;
  url: string;
  /** The inspector's root: `${url}/api/flows/_inspector`. */
  inspector: string;
  close(): Promise<void>;
}

/** A host with the inspector mounted, served by Express on an ephemeral 127.0.0.1 port. */
export async function startInspectorServer(options: {
  inspector: boolean;
  resolvePrincipal?: PrincipalResolver;
  gate?: Promise<void>;
}): Promise<InspectorServer> {
  const host = createFlowHost({
    flows: [notebookFlow(options.gate)],
    stores: createMemoryStores(),
    inspector: options.inspector,
    inbound: [inspectorInbound()],
    webhookProviders: { demo: demoProvider },
    logLevel: "silent",
    ...(options.resolvePrincipal ? { resolvePrincipal: options.resolvePrincipal } : {}),
  });
  await host.start();
  const app = express();
  app.use(createFlowRouter(host));
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    url,
    inspector: `${url}${host.basePath}/_inspector`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close();
    },
  };
}

/** Calls `action` over real HTTP (`body`: `{ input, sessionId?, userId? }`); returns the request and session ids. */
export async function runAction(
  server: InspectorServer,
  action: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ requestId: string; sessionId: string }> {
  const response = await fetch(`${server.url}${server.host.basePath}/notebook/actions/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (response.status !== 202)
    throw new Error(`action ${action}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { requestId: string; sessionId: string };
}

/** Sends a `note.created` delivery to the demo provider over real HTTP; returns the request it started. */
export async function deliverWebhook(server: InspectorServer, id: string, title: string): Promise<string> {
  const response = await fetch(`${server.url}${server.host.basePath}/notebook/webhooks/demo`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-demo-secret": WEBHOOK_SECRET },
    body: JSON.stringify({ id, type: "note.created", title }),
  });
  if (response.status !== 202) throw new Error(`delivery ${id}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { requestId: string }).requestId;
}

/** Waits for a request to end (its stream closes after the terminal event). */
export async function settle(server: InspectorServer, requestId: string): Promise<void> {
  // The host's own stream of the request ends after its terminal event.
  for await (const _ of server.host.events(requestId)) {
    // drained
  }
}
