import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";
import { keySegments, keysWithin, overlappingKey, storedKeySegments } from "./key-overlap.js";
import { compilePattern } from "./pattern.js";

const p = (pattern: string) => compilePattern(pattern).segments;
const k = keySegments;

describe("overlappingKey: patterns against patterns", () => {
  it.each([
    ["*", "*", "x"],
    ["hid/*", "hid/**", "hid/x"],
    ["pj/*", "pj/**", "pj/x"],
    ["files/**", "files/**", "files/x"],
    ["**", "a/b/*", "a/b/x"],
    ["x/**", "x/y/**", "x/y/x"],
    ["a/*/c", "a/b/*", "a/b/c"],
    ["[topic]/notes", "files/*", "files/notes"],
    ["[a]/[b]", "*/z", "x/z"],
    ["notes/[id]", "notes/*", "notes/x"],
  ])("%s and %s both address %s", (a, b, key) => {
    expect(overlappingKey(p(a), p(b))).toBe(key);
    expect(overlappingKey(p(b), p(a))).toBe(key);
    expect(compilePattern(a).matches(key)).toBe(true);
    expect(compilePattern(b).matches(key)).toBe(true);
  });

  it.each([
    ["a/*", "b/*"],
    ["a/*", "a/*/b"],
    ["notes/*", "notes/[a]/[b]"],
    ["[topic]/notes", "files/*/notes"],
  ])("%s and %s never address one key", (a, b) => {
    expect(overlappingKey(p(a), p(b))).toBeUndefined();
    expect(overlappingKey(p(b), p(a))).toBeUndefined();
  });

  it("** needs at least one segment and takes any depth after it", () => {
    expect(overlappingKey(p("x/**"), k("x"))).toBeUndefined();
    expect(overlappingKey(p("x/y/**"), p("x/*"))).toBeUndefined();
    expect(overlappingKey(p("x/**"), p("x/[a]/y/[b]"))).toBe("x/x/y/x");
  });

  it("agrees with CompiledPattern.matches over every key of a small universe (brute force)", () => {
    const patterns = [
      "*",
      "**",
      "a/*",
      "a/**",
      "b/*",
      "*/a",
      "*/b",
      "a/*/b",
      "[p]/a",
      "a/[p]",
      "[p]/[q]",
      "[p]/b/[q]",
      "a/b/**",
      "b/[p]/a",
    ];
    const universe: string[] = [];
    const grow = (prefix: string[], depth: number): void => {
      if (prefix.length > 0) universe.push(prefix.join("/"));
      if (depth === 0) return;
      for (const s of ["a", "b", "x"]) grow([...prefix, s], depth - 1);
    };
    grow([], 4);
    for (const a of patterns) {
      for (const b of patterns) {
        const left = compilePattern(a);
        const right = compilePattern(b);
        const shared = universe.some((key) => left.matches(key) && right.matches(key));
        const example = overlappingKey(left.segments, right.segments);
        expect({ a, b, overlaps: example !== undefined }).toEqual({ a, b, overlaps: shared });
        // Within: every key of the universe `a` matches, `b` matches too (the universe is deep enough for these patterns).
        const within = universe.every((key) => !left.matches(key) || right.matches(key));
        expect({ a, b, within: keysWithin(left.segments, right.segments) }).toEqual({ a, b, within });
        if (example !== undefined)
          expect([left.matches(example), right.matches(example)]).toEqual([true, true]);
      }
    }
  });
});

describe("overlappingKey: fixed keys", () => {
  it("a single key overlaps a pattern exactly when the pattern matches it", () => {
    expect(overlappingKey(k("secretDoc"), p("*"))).toBe("secretDoc");
    expect(overlappingKey(p("**"), k("docs/secret"))).toBe("docs/secret");
    expect(overlappingKey(k("hid/x"), p("hid/*"))).toBe("hid/x");
    expect(overlappingKey(k("notes"), p("notes/*"))).toBeUndefined();
    expect(overlappingKey(k("a/b"), p("*"))).toBeUndefined();
  });

  it("two keys overlap only when equal; empty segments are matched by no pattern segment", () => {
    expect(overlappingKey(k("doc"), k("doc"))).toBe("doc");
    expect(overlappingKey(k("doc"), k("Doc"))).toBeUndefined();
    expect(overlappingKey(k("a//b"), k("a//b"))).toBe("a//b");
    expect(overlappingKey(k("a//b"), p("a/*/b"))).toBeUndefined();
    expect(overlappingKey(k("a//b"), p("a/**"))).toBeUndefined();
    expect(overlappingKey(k(""), p("*"))).toBeUndefined();
    expect(overlappingKey(k("/a"), p("**"))).toBeUndefined();
  });
});

describe("storedKeySegments", () => {
  const schema = z.object({});
  it("is a single resource's ref, else its accessor; a collection's pattern; nothing for an external collection", () => {
    expect(storedKeySegments(defineResource({ scope: "session" }), "brief")).toEqual(k("brief"));
    expect(storedKeySegments(defineResource({ scope: "session", ref: "docs/a" }), "brief")).toEqual(
      k("docs/a"),
    );
    const notes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema: schema });
    expect(storedKeySegments(notes, "notes")).toBe(notes.compiledPattern.segments);
    const tickets = defineExternalCollection({ pattern: "t/*", scope: "org", read: () => null });
    expect(storedKeySegments(tickets, "tickets")).toBeUndefined();
  });
});
