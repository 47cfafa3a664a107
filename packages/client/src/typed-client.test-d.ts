import { describe, expectTypeOf, it } from "vitest";
import { createFlowClient, type FlowClient } from "./client.js";
import type {
  ActionInputOf,
  ActionNameOf,
  ActionOutputOf,
  FlowIdOf,
  ResourceClientDataOf,
  ResourceRefOf,
} from "./flow-views.js";
import type { chat, flows, notebook } from "./testing/notebook-flows.js";
import type {
  CollectionClient,
  CreatedSession,
  SingleResourceClient,
  TypedFlowClient,
} from "./typed-client.js";
import type {
  CollectionItem,
  CollectionPage,
  InvokeResult,
  ItemState,
  JsonValue,
  Snapshot,
} from "./types.js";

const client = createFlowClient<typeof flows>({ baseUrl: "" });
type Note = { title: string; pinned: boolean };

describe("the typed client", () => {
  it("is the untyped client without a type argument, and typed with one", () => {
    expectTypeOf(createFlowClient({ baseUrl: "" })).toEqualTypeOf<FlowClient>();
    expectTypeOf(client).toEqualTypeOf<TypedFlowClient<typeof flows>>();
  });

  it("knows the flow ids of an array of flows, instances by their own id", () => {
    expectTypeOf<FlowIdOf<typeof flows>>().toEqualTypeOf<"notebook" | "work" | "chat">();
    // @ts-expect-error "notes" is not a flow
    void client.invoke("notes", "addNote", { input: { title: "a" } });
    // @ts-expect-error no flow "notebooks"
    void client.createSession("notebooks");
    expectTypeOf(client.createSession("work")).resolves.toEqualTypeOf<CreatedSession<"work">>();
    expectTypeOf(client.createSession("work")).resolves.toHaveProperty("flowId").toEqualTypeOf<"work">();
  });

  it("takes one flow or an object of flows as well", () => {
    const one = createFlowClient<typeof chat>({ baseUrl: "" });
    void one.invoke("chat", "say", { input: { text: "hi" } });
    // @ts-expect-error only the chat flow is known
    void one.invoke("notebook", "ping", { input: null });
    const byKey = createFlowClient<{ notebook: typeof notebook; chat: typeof chat }>({ baseUrl: "" });
    expectTypeOf<Parameters<typeof byKey.invoke>[0]>().toEqualTypeOf<"notebook" | "chat">();
  });

  it("checks action names per flow", () => {
    expectTypeOf<ActionNameOf<typeof flows, "notebook">>().toEqualTypeOf<"addNote" | "ping">();
    expectTypeOf<ActionNameOf<typeof flows, "chat">>().toEqualTypeOf<"say">();
    // @ts-expect-error "say" is the chat flow's action, not the notebook's
    void client.invoke("notebook", "say", { input: { text: "hi" } });
    // @ts-expect-error no action "addNotes"
    void client.invokeAndStream("work", "addNotes", { input: { title: "a" } });
  });

  it("types an action's input as its schema's input type (defaults optional) and checks it", () => {
    expectTypeOf<ActionInputOf<typeof flows, "notebook", "addNote">>().toEqualTypeOf<{
      title: string;
      text?: string | undefined;
      pinned?: boolean | undefined;
    }>();
    expectTypeOf(
      client.invoke("notebook", "addNote", { input: { title: "Milk" }, sessionId: "s1" }),
    ).resolves.toEqualTypeOf<InvokeResult>();
    // @ts-expect-error title is a string
    void client.invoke("notebook", "addNote", { input: { title: 1 } });
    // @ts-expect-error title is required
    void client.invoke("notebook", "addNote", { input: { text: "no title" } });
    // @ts-expect-error no such input field
    void client.invoke("notebook", "addNote", { input: { title: "a", colour: "red" } });
    // @ts-expect-error the body still needs input
    void client.invoke("chat", "say", { sessionId: "s1" });
    // An action without inputSchema takes any input.
    void client.invoke("notebook", "ping", { input: { anything: [1, 2] } });
  });

  it("types an action's output for getRequest", () => {
    type Output = ActionOutputOf<typeof flows, "notebook", "addNote">;
    expectTypeOf<Output>().toEqualTypeOf<{ topic: string; noteCount: number }>();
    expectTypeOf<ActionOutputOf<typeof flows, "notebook", "ping">>().toEqualTypeOf<"pong">();
    expectTypeOf(client.getRequest<Output>("r1"))
      .resolves.toHaveProperty("output")
      .toEqualTypeOf<Output | undefined>();
  });

  it("addresses only resources whose client block grants something, typed by their projection", () => {
    expectTypeOf<ResourceRefOf<typeof flows>>().toEqualTypeOf<"notes" | "profile">();
    // @ts-expect-error "audit" has no client block: invisible to clients
    client.resources("s1", "audit");
    // @ts-expect-error no resource "note"
    client.resources("s1", "note");
    const notes = client.resources("s1", "notes");
    expectTypeOf(notes).toEqualTypeOf<CollectionClient<Note>>();
    expectTypeOf(notes.list()).resolves.toEqualTypeOf<CollectionPage<Note>>();
    expectTypeOf(notes.item("notes/a").state()).resolves.toEqualTypeOf<ItemState<Note>>();
    expectTypeOf(notes.create({ topic: "a" }))
      .resolves.toHaveProperty("clientData")
      .toEqualTypeOf<Note | undefined>();
    // A collection has no content of its own: its items do.
    expectTypeOf(notes).not.toHaveProperty("content");
    const profile = client.resources("s1", "profile");
    expectTypeOf(profile).toEqualTypeOf<SingleResourceClient>();
    expectTypeOf<ResourceClientDataOf<typeof flows, "profile">>().toEqualTypeOf<
      Pick<
        { displayName: string; noteCount: number; lastNoteTitle: string | null },
        "displayName" | "noteCount"
      >
    >();
  });

  it("types list items' clientData from the collection's schema", () => {
    const page = {} as CollectionPage<ResourceClientDataOf<typeof flows, "notes">>;
    expectTypeOf(page.items).toEqualTypeOf<CollectionItem<Note>[]>();
    for (const item of page.items) if (item.clientData) expectTypeOf(item.clientData.pinned).toBeBoolean();
  });

  it("types a snapshot's scope client data by the flow named, each field optional", () => {
    const snapshot = client.snapshot<"notebook">("s1");
    expectTypeOf(snapshot).resolves.toHaveProperty("clientData").toEqualTypeOf<{
      readonly session: { added?: number; summary?: string };
    }>();
    expectTypeOf(snapshot).resolves.toHaveProperty("resources").toEqualTypeOf<Snapshot["resources"]>();
    // The chat flow publishes no scope client data.
    expectTypeOf(client.snapshot<"chat">("s1")).resolves.toHaveProperty("clientData").toEqualTypeOf<{}>();
    // @ts-expect-error no flow "chats"
    void client.snapshot<"chats">("s1");
  });

  it("leaves the rest of the client as it is untyped", () => {
    expectTypeOf(client.getRequest("r1"))
      .resolves.toHaveProperty("output")
      .toEqualTypeOf<JsonValue | undefined>();
    expectTypeOf(client.events).toEqualTypeOf<FlowClient["events"]>();
    expectTypeOf(client.listSessionsPage).toEqualTypeOf<FlowClient["listSessionsPage"]>();
  });
});
