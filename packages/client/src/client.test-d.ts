import { describe, expectTypeOf, it } from "vitest";
import { createFlowClient } from "./client.js";
import {
  type FlowStreamEvent,
  isStreamEvent,
  isTerminalEvent,
  type TerminalStreamEvent,
} from "./stream-events.js";
import type { CollectionPage, FlowRequest, ItemState, JsonValue, Snapshot } from "./types.js";

const client = createFlowClient({ baseUrl: "" });

describe("client types", () => {
  it("defaults payloads to JSON values and takes a caller's types where it names them", () => {
    expectTypeOf(client.getRequest("r1")).resolves.toEqualTypeOf<FlowRequest<JsonValue>>();
    expectTypeOf(client.getRequest<{ ok: boolean }>("r1"))
      .resolves.toHaveProperty("output")
      .toEqualTypeOf<{ ok: boolean } | undefined>();
    expectTypeOf(client.snapshot("s1")).resolves.toEqualTypeOf<Snapshot>();
    type Mine = Snapshot & { clientData: { session: { added: number } } };
    expectTypeOf(client.snapshot<Mine>("s1")).resolves.toEqualTypeOf<Mine>();
  });

  it("types collection pages and item state by the clientData type given to resources()", () => {
    const notes = client.resources<{ title: string }>("s1", "notes");
    expectTypeOf(notes.list()).resolves.toEqualTypeOf<CollectionPage<{ title: string }>>();
    expectTypeOf(notes.item("a").state()).resolves.toEqualTypeOf<ItemState<{ title: string }>>();
    // @ts-expect-error limit is a number
    void notes.list({ limit: "10" });
    // @ts-expect-error create needs a topic
    void notes.create({ content: "x" });
  });

  it("checks the invoke body against the input type given", () => {
    void client.invoke<{ key: string }>("notebook", "addNote", { input: { key: "a" } });
    // @ts-expect-error key must be a string
    void client.invoke<{ key: string }>("notebook", "addNote", { input: { key: 1 } });
    // @ts-expect-error input is required
    void client.invoke("notebook", "addNote", { sessionId: "s1" });
    // Without a resolver the body names the user, also on an existing session.
    void client.invoke("notebook", "addNote", { input: {}, sessionId: "s1", userId: "u1" });
    // @ts-expect-error userId is a string
    void client.invoke("notebook", "addNote", { input: {}, userId: 1 });
  });

  it("narrows stream events with isStreamEvent and isTerminalEvent", () => {
    const event = {} as FlowStreamEvent;
    if (isStreamEvent(event, "resource_change")) {
      expectTypeOf(event.change).toEqualTypeOf<"created" | "updated" | "deleted" | "content">();
    }
    if (isStreamEvent(event, "text.delta")) expectTypeOf(event.delta).toEqualTypeOf<string>();
    if (isTerminalEvent(event)) expectTypeOf(event).toEqualTypeOf<TerminalStreamEvent>();
    // @ts-expect-error not a runtime event type
    isStreamEvent(event, "text.deltas");
    expectTypeOf(client.events("r1")).toEqualTypeOf<
      AsyncGenerator<FlowStreamEvent, TerminalStreamEvent | undefined>
    >();
    expectTypeOf(client.subscribe("r1", { onEvent: () => {} })).resolves.toEqualTypeOf<
      TerminalStreamEvent | undefined
    >();
  });

  it("accepts static headers or a function returning them", () => {
    createFlowClient({ baseUrl: "", headers: { authorization: "Bearer x" } });
    createFlowClient({ baseUrl: "", headers: async () => ({ authorization: "Bearer x" }) });
    // @ts-expect-error header values are strings
    createFlowClient({ baseUrl: "", headers: { "x-n": 1 } });
  });
});
