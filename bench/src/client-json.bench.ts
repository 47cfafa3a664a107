/**
 * The JSON-text fast path of client pages (`packages/engine/src/resources/client-json.ts`): a 50-item page of
 * whole stored states laid out from the text the store holds, against the same page parsed and serialised again
 * (`JSON.stringify(await api.listItems(...))`, what serving it without the fast path costs). Both over the same
 * memory store and collection, alternating rounds, in this process. The fast path stays while the ratio is above 1.
 */
import { defineFlow, defineResourceCollection, type FlowStores } from "@flowrt/core";
import { createFlowHost } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import { z } from "zod";
import { formatTable, type Measurement, measure } from "./measure.js";

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({
    title: z.string().default(""),
    body: z.string().default(""),
    n: z.number().default(0),
  }),
  client: { content: { read: true, create: true }, state: { read: true } },
});
const flow = defineFlow({ kind: "pages", resources: { notes }, actions: {} });

async function seeded(stores: FlowStores, items: number) {
  const host = createFlowHost({ flows: [flow], stores, retention: false, recoveryIntervalMs: 0 });
  await host.start();
  const session = await host.createSession("pages", { source: "bench", principal: { userId: "bench" } });
  const address = { scope: "session" as const, scopeId: session.id, bucket: "shared" };
  for (let i = 0; i < items; i++) {
    const state = { title: `note ${i}`, body: "lorem ipsum dolor sit amet ".repeat(4), n: i };
    await stores.resources.putState(address, `notes/${String(i).padStart(6, "0")}`, state, {
      type: "absent",
    });
  }
  return { host, sessionId: session.id };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(): Promise<string> {
  const ms = Number(process.env.BENCH_MS ?? 1000);
  const rounds = Number(process.env.CLIENT_JSON_ROUNDS ?? 5);
  const stores = createMemoryStores({ retention: false });
  const { host, sessionId } = await seeded(stores, 1_000);
  const api = await host.resourceApi(sessionId, { source: "bench", principal: { userId: "bench" } });
  const query = { limit: 50, offset: 100 };
  // Same bytes either way: the fast path is exactly what JSON.stringify makes of the parsed page.
  const fast = await api.listItemsJson("notes", query);
  if (fast !== JSON.stringify(await api.listItems("notes", query))) throw new Error("the two paths differ");
  const text: Measurement[] = [];
  const parsed: Measurement[] = [];
  for (let round = 0; round < rounds; round++) {
    const pair = [
      () => measure("text", () => api.listItemsJson("notes", query), ms).then((m) => text.push(m)),
      async () =>
        measure("parsed", async () => JSON.stringify(await api.listItems("notes", query)), ms).then((m) =>
          parsed.push(m),
        ),
    ];
    // Alternate which goes first.
    for (const step of round % 2 === 0 ? pair : pair.reverse()) await step();
  }
  await host.close();
  await stores.close();
  const textUs = median(text.map((m) => m.meanUs));
  const parsedUs = median(parsed.map((m) => m.meanUs));
  return [
    formatTable([
      { path: "laid out from stored text (listItemsJson)", "µs per page (median of rounds)": textUs },
      { path: "parsed, then JSON.stringify (listItems)", "µs per page (median of rounds)": parsedUs },
    ]),
    "",
    `- 50-item page at offset 100 of 1000 items, memory store, ${rounds} alternating rounds of ${ms} ms each.`,
    `- parsed ÷ text: ${(parsedUs / textUs).toFixed(2)}× (the fast path is kept while this is above 1).`,
  ].join("\n");
}
