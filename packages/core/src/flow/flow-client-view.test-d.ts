import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { handler } from "../blocks/handler.js";
import type { ResourceClientView } from "../resources/client-view.js";
import { defineResource, defineResourceCollection } from "../resources/index.js";
import { defineFlow } from "./define-flow.js";

/** The `~client` view a definition records (type-level only). */
type ViewOf<T> = T extends { readonly "~client"?: infer V } ? Exclude<V, undefined> : never;

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
  client: { state: { read: true } },
});
const audit = defineResource({ scope: "session", stateSchema: z.object({ writes: z.number().default(0) }) });
const addNote = handler({
  name: "addNote",
  inputSchema: z.object({ title: z.string(), pinned: z.boolean().default(false) }),
  outputSchema: z.object({ topic: z.string() }),
  execute: (input) => ({ topic: input.title }),
});
const ping = handler({ name: "ping", execute: () => "pong" as const });

const notebook = defineFlow({
  kind: "notebook",
  session: {
    stateSchema: z.object({ added: z.number().default(0), draft: z.string().default("") }),
    client: {
      expose: ["added"],
      derived: {
        label: (state) => {
          expectTypeOf(state).toEqualTypeOf<{ added: number; draft: string }>();
          return `${state.added}`;
        },
      },
    },
  },
  user: { stateSchema: z.object({ seen: z.boolean().default(false) }) },
  resources: { notes, audit },
  actions: {
    addNote,
    ping: {
      block: ping,
      durable: true,
      onCompleted: (_output, ctx) => {
        expectTypeOf(ctx.session.state.added).toEqualTypeOf<number>();
      },
    },
  },
});

describe("a flow's client view", () => {
  it("names the flow by its kind, and an instance by its id", () => {
    expectTypeOf<ViewOf<typeof notebook>["id"]>().toEqualTypeOf<"notebook">();
    const work = notebook.instance({ id: "work" });
    expectTypeOf<ViewOf<typeof work>["id"]>().toEqualTypeOf<"work">();
    expectTypeOf<ViewOf<typeof work>["actions"]>().toEqualTypeOf<ViewOf<typeof notebook>["actions"]>();
  });

  it("types each action's input (zod input) and output, bare block or { block }", () => {
    type Actions = ViewOf<typeof notebook>["actions"];
    expectTypeOf<keyof Actions>().toEqualTypeOf<"addNote" | "ping">();
    expectTypeOf<Actions["addNote"]["input"]>().toEqualTypeOf<{
      title: string;
      pinned?: boolean | undefined;
    }>();
    expectTypeOf<Actions["addNote"]["output"]>().toEqualTypeOf<{ topic: string }>();
    expectTypeOf<Actions["ping"]["input"]>().toBeUnknown();
    expectTypeOf<Actions["ping"]["output"]>().toEqualTypeOf<"pong">();
  });

  it("lists the flow-level resources that grant clients something, with their views", () => {
    type Resources = ViewOf<typeof notebook>["resources"];
    expectTypeOf<keyof Resources>().toEqualTypeOf<"notes">();
    expectTypeOf<Resources["notes"]>().toEqualTypeOf<
      ResourceClientView<"collection", { title: string }, {}>
    >();
  });

  it("types the scopes' client data: exposed fields and derived values, each optional", () => {
    expectTypeOf<ViewOf<typeof notebook>["clientData"]["session"]>().toEqualTypeOf<{
      added?: number;
      label?: string;
    }>();
    // The user scope has a schema but no client block: it publishes nothing.
    expectTypeOf<ViewOf<typeof notebook>["clientData"]>().not.toHaveProperty("user");
  });
});
