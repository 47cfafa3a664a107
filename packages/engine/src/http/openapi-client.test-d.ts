import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { addNoteInput, addNoteOutput } from "../testing/openapi-app.js";
import type { components, operations, paths } from "../testing/openapi-app.types.js";

/** What a generated client sends and reads for an operation (openapi-typescript's shapes). */
type JsonBody<T> = T extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Answer<T, S extends number> = T extends {
  responses: { [K in S]: { content: { "application/json": infer A } } };
}
  ? A
  : never;

type AddNote = paths["/notebook/actions/addNote"]["post"];

describe("a client generated with openapi-typescript from the document", () => {
  it("types an action's input as its zod schema's input (defaults optional), and requires it", () => {
    expectTypeOf<JsonBody<AddNote>["input"]>().toEqualTypeOf<z.input<typeof addNoteInput>>();
    expectTypeOf<JsonBody<AddNote>["input"]>().toEqualTypeOf<{
      title: string;
      text?: string;
      pinned?: boolean;
      tags?: string[];
      color?: "yellow" | "blue" | "green";
    }>();
    expectTypeOf<JsonBody<AddNote>>().toEqualTypeOf<{
      input: components["schemas"]["NotebookAddNoteInput"];
      sessionId?: string;
    }>();
    expectTypeOf<AddNote["requestBody"]>().not.toBeUndefined();

    const ok: JsonBody<AddNote> = { input: { title: "Hello" }, sessionId: "s-1" };
    // @ts-expect-error the title is a string
    const wrongType: JsonBody<AddNote> = { input: { title: 42 } };
    // @ts-expect-error no such color
    const wrongEnum: JsonBody<AddNote> = { input: { title: "Hello", color: "red" } };
    // @ts-expect-error the input is required (its schema does not accept undefined)
    const missing: JsonBody<AddNote> = { sessionId: "s-1" };
    void [ok, wrongType, wrongEnum, missing];
  });

  it("types the 202 answer of an action (and of a retry) as the route answers it: requestId and sessionId, always", () => {
    expectTypeOf<Answer<AddNote, 202>>().toEqualTypeOf<{ requestId: string; sessionId: string }>();
    expectTypeOf<Answer<AddNote, 202>>().not.toEqualTypeOf<Record<string, never>>();
    expectTypeOf<Answer<operations["retryRequest"], 202>>().toEqualTypeOf<
      components["schemas"]["ActionAccepted"]
    >();
  });

  it("types an action's output from its outputSchema, in the request record", () => {
    expectTypeOf<components["schemas"]["NotebookAddNoteOutput"]>().toEqualTypeOf<
      z.output<typeof addNoteOutput>
    >();
    type Read = Answer<paths["/requests/{requestId}"]["get"], 200>;
    expectTypeOf<Read["request"]["status"]>().toEqualTypeOf<
      "queued" | "running" | "completed" | "failed" | "aborted"
    >();
  });

  it("names each action's operation, keeps an optional input optional, and asks a flow without a resolver for its user", () => {
    expectTypeOf<operations["runNotebookAddNote"]>().toEqualTypeOf<AddNote>();
    type Sign = JsonBody<paths["/guestbook/actions/sign"]["post"]>;
    const noInput: Sign = {};
    const named: Sign = { input: { name: "Ada", message: "hi" }, userId: "ada" };
    void [noInput, named];
    // @ts-expect-error a flow with a resolver reads no userId from the body
    const claimed: JsonBody<AddNote> = { input: { title: "Hello" }, userId: "ada" };
    void claimed;
  });

  it("types problems with their stable code", () => {
    type NotFound = components["responses"]["NotFound"]["content"]["application/problem+json"];
    expectTypeOf<NotFound["code"]>().toExtend<string>();
    expectTypeOf<"session-not-found">().toExtend<NotFound["code"]>();
    // @ts-expect-error not a code of the catalogue
    const unknownCode: NotFound["code"] = "no-such-code";
    void unknownCode;
  });
});
