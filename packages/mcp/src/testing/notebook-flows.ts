import {
  defineFlow,
  defineResourceCollection,
  type FlowStores,
  generator,
  handler,
  type PrincipalResolutionContext,
  PrincipalResolutionError,
} from "@flowrt/core";
import { createFlowHost, type FlowHostOptions, silentLogger } from "@flowrt/engine";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

/** Bearer tokens of the test users. */
export const TOKENS = { ada: "token-ada", bob: "token-bob", root: "token-root" } as const;

function bearer(context: PrincipalResolutionContext): string | undefined {
  const header = context.request?.headers.authorization;
  const value = Array.isArray(header) ? header[0] : header;
  return value?.startsWith("Bearer ") ? value.slice("Bearer ".length) : undefined;
}

/** Every call a resolver saw: its source, and whether a request (headers) came with it. */
export const resolverCalls: Array<{ source: string; flowKind: string }> = [];

const userOf = (token: string | undefined) =>
  token === TOKENS.ada ? "ada" : token === TOKENS.bob ? "bob" : token === TOKENS.root ? "root" : undefined;

/** A host-level resolver of the same tokens (listings across flows need one, as `GET /sessions` does). */
export const hostResolver = async (context: PrincipalResolutionContext) => {
  const userId = userOf(bearer(context));
  return userId ? { userId } : null;
};

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { content: { read: true, create: true }, state: { read: true } },
});

const addNote = handler({
  name: "addNote",
  description: "Adds a note to the session.",
  inputSchema: z.object({ key: z.string().min(1), title: z.string() }),
  outputSchema: z.object({ ok: z.boolean(), key: z.string() }),
  execute: async (input, ctx) => {
    await ctx.resources.notes.create(input.key, { title: input.title });
    await ctx.session.incState({ added: 1 });
    return { ok: true, key: input.key };
  },
});

/** Deltas the mock model streams, a few milliseconds apart. */
export const DELTAS = ["Once ", "upon ", "a ", "time."];

function storyModel() {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunkDelayInMs: 15,
        chunks: [
          { type: "text-start", id: "t" },
          ...DELTAS.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
          { type: "text-end", id: "t" },
          {
            type: "finish",
            finishReason: { unified: "stop", raw: undefined },
            usage: {
              inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 5, text: 5, reasoning: undefined },
            },
          },
        ],
      }),
    }),
  });
}

const tell = generator({
  name: "tell",
  model: storyModel(),
  inputSchema: z.object({ topic: z.string() }),
  prompt: (input) => `Tell a story about ${input.topic}`,
});

/** What the `wait` action saw of its abort signal, by request id. */
export const waitOutcomes = new Map<string, "aborted">();

const wait = handler({
  name: "wait",
  inputSchema: z.object({}),
  execute: async (_input, ctx) => {
    ctx.emit({ type: "progress", data: { waiting: true } });
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    waitOutcomes.set(ctx.requestId, "aborted");
    return { done: false };
  },
});

const recordCharge = handler({
  name: "recordCharge",
  execute: async () => ({ ok: true }),
});

export const notebook = defineFlow({
  kind: "notebook",
  authentication: {
    resolvePrincipal: async (context) => {
      resolverCalls.push({ source: context.source, flowKind: context.envelope.flowKind });
      const userId = userOf(bearer(context));
      return userId ? { userId } : null;
    },
  },
  session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
  resources: { notes },
  actions: { addNote, tell, wait },
  webhooks: { stripe: { on: { "charge.succeeded": { block: recordCharge } } } },
});

const purge = handler({ name: "purge", execute: async () => ({ purged: 0 }) });

/** Fails the way a bug or an outage does: its message names what clients must not see. */
const explode = handler({
  name: "explode",
  execute: async () => {
    throw new Error("connection to 10.0.0.7 refused: password authentication failed");
  },
});

/** Only `root` may use it: no credential is 401, anyone else's 403. */
export const admin = defineFlow({
  kind: "admin",
  authentication: {
    resolvePrincipal: async (context) => {
      const token = bearer(context);
      if (token === undefined) return null;
      if (token !== TOKENS.root) throw new PrincipalResolutionError("Administrators only.", { status: 403 });
      return { userId: "root" };
    },
  },
  actions: { purge, explode },
});

/** A host of the two flows over `stores` (webhook provider configured, never called). */
export function notebookHost(stores: FlowStores, options: Partial<FlowHostOptions> = {}) {
  return createFlowHost({
    flows: [notebook, admin],
    stores,
    logger: silentLogger,
    webhookProviders: { stripe: { verify: () => false, eventType: () => null } },
    ...options,
  });
}
