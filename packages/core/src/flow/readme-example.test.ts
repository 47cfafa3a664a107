// The README's "A complete flow" example, kept here so that it keeps compiling and defining. Keep the two in step.
import { z } from "zod";
import {
  defineFlow,
  defineResource,
  defineResourceCollection,
  generator,
  handler,
  rescue,
  router,
  sequencer,
  step,
} from "../index.js";

const openai = (id: string) => ({ specificationVersion: "v3", provider: "openai", modelId: id });

// Resources: a session-scoped collection clients may read and edit, and a private user-scoped record.
const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});
const profile = defineResource({
  scope: "user",
  stateSchema: z.object({ summariesWritten: z.number().default(0) }),
});

// A handler: input parsed by inputSchema, ctx.session typed by the `session` schema.
const addNote = handler({
  name: "addNote",
  inputSchema: z.object({ key: z.string(), title: z.string() }),
  session: z.object({ added: z.number().default(0) }),
  execute: async (input, ctx) => {
    await ctx.resources.notes.create(input.key, { title: input.title }); // flow-level resource: loosely typed
    await ctx.session.incState({ added: 1 }); // typed: `added` is a number field
    return { ok: true };
  },
});

// A generator: one model run; structured output when outputSchema is set.
const summarize = generator({
  name: "summarize",
  model: openai("gpt-5-mini"),
  system: "You summarise notes in one sentence.",
  inputSchema: z.object({ text: z.string() }),
  prompt: (input) => input.text,
  outputSchema: z.object({ summary: z.string() }),
  tokenBudget: 20_000,
});

// A handler that declares its own (action-level) resource: ctx.resources.profile is fully typed.
const countSummary = handler({
  name: "countSummary",
  resources: { profile },
  execute: async (input: unknown, ctx) => {
    await ctx.resources.profile.incState({ summariesWritten: 1 });
    return input; // pass the summary through
  },
});

// A sequencer: each step gets the previous step's output; the last step's output is the result.
const summarizeNotes = sequencer({
  name: "summarizeNotes",
  steps: [
    handler({
      name: "collect",
      execute: async (_input, ctx) => {
        const all = await ctx.resources.notes.list();
        return { text: all.map((n: { state: { title: string } }) => n.state.title).join("\n") };
      },
    }),
    rescue(summarize, () => ({ summary: "(no summary available)" })),
    step(countSummary),
  ],
});

// A router: `select` may only return a declared route name.
const triage = router({
  name: "triage",
  inputSchema: z.object({ kind: z.enum(["note", "summary"]), key: z.string(), title: z.string() }),
  routes: { note: addNote, summary: summarizeNotes },
  select: (input) => input.kind,
});

export const notebook = defineFlow({
  kind: "notebook",
  authentication: { resolvePrincipal: async (c) => ({ userId: c.request?.headers["x-user"] }) },
  session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
  user: { stateSchema: z.object({ plan: z.enum(["free", "pro"]).default("free") }) },
  resources: { notes },
  actions: {
    addNote: { block: addNote },
    summarize: { block: summarizeNotes, durable: true, description: "Summarise this session's notes" },
    triage, // a bare block is shorthand for { block }
  },
  webhooks: {
    github: {
      on: {
        issues: {
          block: addNote,
          when: (event) => (event.payload as { action?: string }).action === "opened",
          input: (event) => {
            const issue = (event.payload as { issue: { number: number; title: string } }).issue;
            return { key: `issue-${issue.number}`, title: issue.title };
          },
          sessionId: () => "github-inbox",
        },
      },
    },
  },
});

// A named copy: same definition, its own id (URL `flowId`), its own sessions.
export const notebookEu = notebook.instance({ id: "notebook-eu" });

import { expect, it } from "vitest";

it("readme example defines", () => {
  expect(notebook.id).toBe("notebook");
  expect(notebookEu.instanceOf).toBe("notebook");
  expect(Object.keys(notebook.actions)).toEqual(["addNote", "summarize", "triage"]);
});
