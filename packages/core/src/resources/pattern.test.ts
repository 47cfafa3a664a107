import { describe, expect, it } from "vitest";
import { hasErrorCode } from "../errors.js";
import { compilePattern } from "./pattern.js";
import { definitionErrorOf } from "./testing/definition-error.js";

function invalidKeyOf(fn: () => unknown): Error & { details?: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    expect(hasErrorCode(error, "invalid-key")).toBe(true);
    return error as Error & { details?: Record<string, unknown> };
  }
  throw new Error("expected an invalid-key error");
}

describe("compilePattern: parsing", () => {
  it("classifies wildcard, deep and parameter patterns and finds the literal prefix", () => {
    const files = compilePattern("files/*");
    expect([files.kind, files.literalPrefix, files.params]).toEqual(["wildcard", "files/", []]);
    const deep = compilePattern("a/b/**");
    expect([deep.kind, deep.literalPrefix]).toEqual(["deep", "a/b/"]);
    const notes = compilePattern("[topic]/notes");
    expect([notes.kind, notes.literalPrefix, notes.params]).toEqual(["params", "", ["topic"]]);
    expect(notes.segments).toEqual([
      { type: "param", name: "topic" },
      { type: "literal", value: "notes" },
    ]);
    expect(compilePattern("org/[team]/members/[member]").params).toEqual(["team", "member"]);
  });

  it("** is accepted only as the last segment", () => {
    expect(() => compilePattern("files/**")).not.toThrow();
    const message = definitionErrorOf(() => compilePattern("files/**/x"), "pattern");
    expect(message).toContain('pattern "files/**/x" uses ** before the last segment');
    expect(message).toContain("Make ** the last segment");
  });

  it.each([
    ["", "non-empty string"],
    ["/files/*", "empty segment"],
    ["files//*", "empty segment"],
    ["files/*/", "empty segment"],
    ["files", "no variable segment"],
    ["files/*/**", "more than one wildcard"],
    ["*/x/*", "more than one wildcard"],
    ["[a]/*", "mixes wildcards with [name] parameters"],
    ["notes-*", "mixes literal text"],
    ["note[id]", "mixes literal text"],
    ["[1x]/notes", "invalid parameter"],
    ["[]/notes", "invalid parameter"],
    ["[a]/[a]", "declares parameter [a] twice"],
  ])("refuses pattern %j (%s)", (pattern, problem) => {
    expect(definitionErrorOf(() => compilePattern(pattern), "pattern")).toContain(problem);
  });

  it("names the resource by name when given, else by the pattern", () => {
    expect(definitionErrorOf(() => compilePattern("a/**/b", { name: "docs" }), "pattern")).toMatch(
      /^Resource "docs": /,
    );
    expect(definitionErrorOf(() => compilePattern("a/**/b"), "pattern")).toMatch(/^Resource "a\/\*\*\/b": /);
  });
});

describe("compilePattern: key matching", () => {
  it("* matches exactly one non-empty segment without /", () => {
    const p = compilePattern("files/*");
    expect(p.matches("files/readme.md")).toBe(true);
    expect(p.matches("files/")).toBe(false);
    expect(p.matches("files/a/b")).toBe(false);
    expect(p.matches("other/readme.md")).toBe(false);
    expect(p.matches("files")).toBe(false);
  });

  it("** matches one or more non-empty segments", () => {
    const p = compilePattern("files/**");
    expect(p.matches("files/readme.md")).toBe(true);
    expect(p.matches("files/src/utils.ts")).toBe(true);
    expect(p.matches("files/")).toBe(false);
    expect(p.matches("files")).toBe(false);
    expect(p.matches("files/a//b")).toBe(false);
    expect(p.matches("filesx/a")).toBe(false);
  });

  it("[name] matches one non-empty segment", () => {
    const p = compilePattern("[topic]/notes");
    expect(p.matches("t1/notes")).toBe(true);
    expect(p.matches("/notes")).toBe(false);
    expect(p.matches("a/b/notes")).toBe(false);
    expect(p.matches("t1/other")).toBe(false);
  });

  it("a wildcard may stand in the middle of a pattern", () => {
    const p = compilePattern("*/notes");
    expect(p.matches("t1/notes")).toBe(true);
    expect(p.toPath("t1")).toBe("t1/notes");
    expect(p.fromPath("t1/notes")).toBe("t1");
  });
});

describe("compilePattern: path derivation", () => {
  it("files/** + readme.md → files/readme.md, and deeper keys keep their slashes", () => {
    const p = compilePattern("files/**");
    expect(p.toPath("readme.md")).toBe("files/readme.md");
    expect(p.toPath("src/utils.ts")).toBe("files/src/utils.ts");
  });

  it("[topic]/notes + { topic: 't1' } → t1/notes", () => {
    expect(compilePattern("[topic]/notes").toPath({ topic: "t1" })).toBe("t1/notes");
    expect(compilePattern("org/[team]/m/[member]").toPath({ member: "bo", team: "red" })).toBe(
      "org/red/m/bo",
    );
  });

  it("a key that already starts with the literal prefix and fits is taken as the full path", () => {
    expect(compilePattern("files/*").toPath("files/readme.md")).toBe("files/readme.md");
    expect(compilePattern("files/**").toPath("files/readme.md")).toBe("files/readme.md");
    expect(compilePattern("[topic]/notes").toPath("t1/notes")).toBe("t1/notes");
  });

  it("fromPath inverts toPath", () => {
    expect(compilePattern("files/**").fromPath("files/src/utils.ts")).toBe("src/utils.ts");
    expect(compilePattern("files/*").fromPath("files/readme.md")).toBe("readme.md");
    expect(compilePattern("[a]/x/[b]").fromPath("1/x/2")).toEqual({ a: "1", b: "2" });
  });

  it.each<[string, unknown]>([
    ["files/*", "a/b"],
    ["files/*", ""],
    ["files/*", { name: "x" }],
    ["files/**", ""],
    ["files/**", "a//b"],
    ["files/**", "a/"],
    ["[topic]/notes", "t1"],
    ["[topic]/notes", {}],
    ["[topic]/notes", { topic: "" }],
    ["[topic]/notes", { topic: "a/b" }],
    ["[topic]/notes", { topic: 1 }],
    ["[topic]/notes", { topic: "t1", extra: "x" }],
    ["[topic]/notes", null],
    ["[topic]/notes", ["t1"]],
  ])("pattern %j refuses key %j with invalid-key", (pattern, key) => {
    const error = invalidKeyOf(() => compilePattern(pattern).toPath(key as never));
    expect(error.details?.pattern).toBe(pattern);
  });

  it("invalid-key names the resource and the pattern", () => {
    const p = compilePattern("files/*", { name: "files" });
    const byName = invalidKeyOf(() => p.toPath("a/b"));
    expect(byName.message).toBe(
      'Resource "files": key "a/b" does not fit pattern "files/*". Pass one non-empty segment without "/" (the part * stands for) or the full path.',
    );
    expect(invalidKeyOf(() => p.toPath("a/b", "docs")).message).toMatch(/^Resource "docs": /);
    expect(invalidKeyOf(() => p.fromPath("other/x")).details).toEqual({
      resource: "files",
      pattern: "files/*",
    });
  });

  it("listPrefix keeps a full-key prefix and appends any other to the literal prefix", () => {
    const p = compilePattern("artifacts/**");
    expect(p.listPrefix()).toBe("artifacts/");
    expect(p.listPrefix("artifacts/projects/p1")).toBe("artifacts/projects/p1");
    expect(p.listPrefix("projects/p1")).toBe("artifacts/projects/p1");
    expect(compilePattern("[topic]/notes").listPrefix("t")).toBe("t");
  });
});
