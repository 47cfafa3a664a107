import { describe, expect, it } from "vitest";
import { contentUri, pageUri, parseResourceUri, stateUri } from "./resource-uri.js";

describe("resource URIs mirror the HTTP resource routes", () => {
  it("round-trips what the server lists", () => {
    expect(parseResourceUri(stateUri("s/1"))).toEqual({ kind: "state", sessionId: "s/1" });
    expect(parseResourceUri(contentUri("s1", "readme"))).toEqual({
      kind: "content",
      sessionId: "s1",
      ref: "readme",
    });
    expect(parseResourceUri(pageUri("s1", "notes"))).toEqual({
      kind: "page",
      sessionId: "s1",
      ref: "notes",
      query: {},
    });
  });

  it("reads a topic over several segments or with %2F, and `content` after :ref as the single resource's (rule 2)", () => {
    const at = "flowrt://sessions/s1/resources/files";
    expect(parseResourceUri(`${at}/src/a.ts`)).toMatchObject({ kind: "item", topic: "src/a.ts" });
    expect(parseResourceUri(`${at}/src%2Fa.ts/content`)).toMatchObject({
      kind: "item-content",
      topic: "src/a.ts",
    });
    expect(parseResourceUri(`${at}/content`)).toEqual({ kind: "content", sessionId: "s1", ref: "files" });
    expect(parseResourceUri(`${at}?limit=5&cursor=abc`)).toMatchObject({
      query: { limit: "5", cursor: "abc" },
    });
  });

  it("names nothing for another scheme, an empty or malformed segment, or an unknown path", () => {
    for (const uri of [
      "file:///etc/passwd",
      "flowrt://sessions//state",
      "flowrt://sessions/%E0%A4%A/state",
      "flowrt://sessions/s1/other",
      "flowrt://sessions/s1/state/more",
      "flowrt://sessions/s1/resources",
    ]) {
      expect(parseResourceUri(uri)).toBeUndefined();
    }
  });
});
