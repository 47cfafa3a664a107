// The example of packages/engine/README.md, kept runnable by readme-example.test.ts.
import { defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import { createFlowHost, createHttpHandler } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import { z } from "zod";

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
    return { ok: true };
  },
});

const notebook = defineFlow({
  kind: "notebook",
  authentication: { resolvePrincipal: async (c) => ({ userId: c.request?.headers["x-user"] }) },
  session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
  resources: { notes },
  actions: { addNote: { block: addNote } },
});

export async function main() {
  const host = createFlowHost({ flows: [notebook], stores: createMemoryStores() });
  await host.start();

  // In-process: run an action as user "ada" and follow its events to the end.
  const caller = { source: "script", principal: { userId: "ada" } };
  const { request, session } = await host.invoke("notebook", "addNote", caller, {
    input: { key: "first", title: "Hello" },
  });
  const types: string[] = [];
  for await (const event of host.events(request.id)) types.push(event.type);

  // Over the transport-neutral HTTP layer (what @flowrt/express adapts): read the snapshot.
  const http = createHttpHandler(host);
  const response = await http({
    method: "GET",
    path: `/sessions/${session.id}/state`,
    url: `/api/flows/sessions/${session.id}/state`,
    query: {},
    headers: { "x-user": "ada" },
  });
  await host.close();
  return { types, status: response.status, snapshot: response.body };
}
