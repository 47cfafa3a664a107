import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createFlowHost, type FlowHost } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import { createMemoryStores } from "@flowrt/store-memory";
import express from "express";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createFlowClient } from "./client.js";
import { isFlowClientError } from "./errors.js";
import { flows } from "./testing/notebook-flows.js";
import { addTypedNote } from "./testing/typed-example.js";

let host: FlowHost;
let server: Server;
let baseUrl: string;

beforeEach(async () => {
  // A real host on the memory store behind the Express adapter, on a real socket.
  host = createFlowHost({ flows, stores: createMemoryStores(), logLevel: "silent" });
  await host.start();
  const app = express();
  app.use(createFlowRouter(host));
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await host.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it("the README shows the typed example file verbatim", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("./testing/typed-example.ts", import.meta.url), "utf8");
  expect(readme).toContain(example.trim());
});

it("the typed README example calls an action and reads the collection through a real host", async () => {
  const result = await addTypedNote({ baseUrl, user: "ada", title: "Milk" });
  expect(result.seen[0]).toBe("request.started");
  expect(result.seen).toContain("resource_change");
  expect(result.seen.at(-1)).toBe("request.completed");
  expect(result.topic).toBe("notes/milk");
  expect(result.added).toBe(1);
  expect(result.notes).toEqual([{ topic: "notes/milk", pinned: true }]);
});

it("answers a created session with the flow id it was created in, an instance's own id included", async () => {
  const client = createFlowClient<typeof flows>({ baseUrl, headers: { "x-user": "ada" } });
  const session = await client.createSession("work");
  expect(session.flowId).toBe("work");
  expect(session.flowKind).toBe("notebook");
});

it("an input the types refuse is refused by the server too (400), and nothing is written", async () => {
  const client = createFlowClient<typeof flows>({ baseUrl, headers: { "x-user": "ada" } });
  // A caller without the types (plain JavaScript) can still send it.
  const wrong = { title: 1 } as unknown as { title: string };
  const error = await client.invoke("notebook", "addNote", { input: wrong }).catch((e: unknown) => e);
  expect(isFlowClientError(error) && [error.status, error.code]).toEqual([400, "invalid-input"]);
  expect(await client.listSessions()).toEqual([]);
  expect(await client.activeRequests()).toEqual([]);
});
