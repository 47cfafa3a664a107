import { describe, expectTypeOf, it } from "vitest";
import { createFlowClient } from "./client.js";
import type {
  ActiveRequest,
  ActiveRequestPage,
  FlowSession,
  SessionPage,
  SessionRemoval,
  SessionRequestPage,
} from "./types.js";

const client = createFlowClient({ baseUrl: "" });

describe("session lifecycle types", () => {
  it("types the answers of rename, update, delete and the pages", () => {
    expectTypeOf(client.renameSession("s1", "t")).resolves.toEqualTypeOf<FlowSession>();
    expectTypeOf(client.updateSession("s1", { metadata: { a: null } })).resolves.toEqualTypeOf<FlowSession>();
    expectTypeOf(client.deleteSession("s1")).resolves.toEqualTypeOf<SessionRemoval>();
    expectTypeOf(client.listSessionRequests("s1")).resolves.toEqualTypeOf<SessionRequestPage>();
    expectTypeOf(client.listSessionsPage({ limit: 2 })).resolves.toEqualTypeOf<SessionPage>();
    expectTypeOf(client.activeRequestsPage()).resolves.toEqualTypeOf<ActiveRequestPage>();
    expectTypeOf(client.activeRequests({ cursor: "c" })).resolves.toEqualTypeOf<ActiveRequest[]>();
    expectTypeOf<SessionPage["nextCursor"]>().toEqualTypeOf<string | null>();
  });

  it("checks what a change may say", () => {
    // @ts-expect-error a title is a string or null
    void client.renameSession("s1", 5);
    // @ts-expect-error only title and metadata change
    void client.updateSession("s1", { userId: "u2" });
    // @ts-expect-error a metadata value is JSON
    void client.updateSession("s1", { metadata: { when: new Date() } });
    // @ts-expect-error limit is a number
    void client.listSessionRequests("s1", { limit: "10" });
  });
});
