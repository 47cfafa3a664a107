import { singleResourcePath } from "./identity.js";
import type { PatternSegment } from "./pattern.js";
import type { AnyResourceDefinition } from "./types.js";

/** What a variable segment stands for in an example key. */
const PLACEHOLDER = "x";

/**
 * The segments of one fixed storage key (a single resource's `ref` or accessor name), each a literal.
 * No normalization: `a//b` keeps its empty segment, which no pattern segment matches.
 */
export function keySegments(key: string): PatternSegment[] {
  return key.split("/").map((value) => ({ type: "literal", value }));
}

/**
 * The segments of the storage keys a declaration addresses: a single resource's one key (its `ref`, else
 * the accessor name), a collection's pattern. `undefined` for an external collection, which stores
 * nothing in the runtime's resource store (its records live in the application's store).
 */
export function storedKeySegments(
  def: AnyResourceDefinition,
  accessor: string,
): readonly PatternSegment[] | undefined {
  switch (def.type) {
    case "single":
      return keySegments(singleResourcePath(def, accessor));
    case "collection":
      return def.compiledPattern.segments;
    default:
      return undefined;
  }
}

/** One segment both sides accept, or `undefined`: literals must be equal, a variable one fits any non-empty literal. */
function meet(a: PatternSegment, b: PatternSegment): string | undefined {
  if (a.type === "literal" && b.type === "literal") return a.value === b.value ? a.value : undefined;
  if (a.type === "literal") return a.value === "" ? undefined : a.value;
  if (b.type === "literal") return b.value === "" ? undefined : b.value;
  return PLACEHOLDER;
}

/** An example of what `segments` (read from `from` on) can stand for, or `undefined` when nothing fits. */
function exampleOf(segments: readonly PatternSegment[], from: number): string[] | undefined {
  const out: string[] = [];
  for (const segment of segments.slice(from)) {
    if (segment.type !== "literal") out.push(PLACEHOLDER);
    else if (segment.value === "") return undefined;
    else out.push(segment.value);
  }
  return out;
}

/**
 * A full storage key that both segment lists address, or `undefined` when none does. Compared segment by
 * segment, as {@link CompiledPattern.matches} reads a key: a literal matches itself, `*` and `[name]` one
 * non-empty segment, `**` (last only) one or more non-empty segments. Variable segments both sides
 * leave open are filled with `x` in the example.
 * @example
 * overlappingKey(compilePattern("hid/*").segments, compilePattern("hid/**").segments); // "hid/x"
 * overlappingKey(keySegments("secretDoc"), compilePattern("*").segments); // "secretDoc"
 * overlappingKey(compilePattern("a/*").segments, compilePattern("b/*").segments); // undefined
 */
export function overlappingKey(
  a: readonly PatternSegment[],
  b: readonly PatternSegment[],
): string | undefined {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined && y === undefined) return out.join("/");
    // One side's keys end here; the other needs at least one more segment (`**` included).
    if (x === undefined || y === undefined) return undefined;
    if (x.type === "deep" || y.type === "deep") {
      // `**` takes the rest of the other side, whatever it is, as long as it is one or more non-empty segments.
      const rest = exampleOf(x.type === "deep" ? b : a, i);
      return rest === undefined ? undefined : [...out, ...rest].join("/");
    }
    const segment = meet(x, y);
    if (segment === undefined) return undefined;
    out.push(segment);
  }
}

/** Whether every key segment `a` accepts is one `b` accepts (a literal fits a variable segment, not the reverse). */
function segmentWithin(a: PatternSegment, b: PatternSegment): boolean {
  if (b.type === "literal") return a.type === "literal" && a.value === b.value;
  return a.type !== "literal" || a.value !== "";
}

/**
 * Whether every storage key `a` addresses is also one `b` addresses (`a`'s keys are a subset of `b`'s),
 * read as {@link overlappingKey} reads segments. A single key is within a pattern that matches it;
 * `hid/*` is within `hid/**`; `[topic]/notes` and `files/**` overlap (at `files/notes`) but neither is
 * within the other.
 * @example
 * keysWithin(keySegments("secretDoc"), compilePattern("*").segments); // true
 * keysWithin(compilePattern("hid/**").segments, compilePattern("hid/*").segments); // false
 */
export function keysWithin(a: readonly PatternSegment[], b: readonly PatternSegment[]): boolean {
  for (let i = 0; ; i++) {
    const x = a[i];
    const y = b[i];
    if (y === undefined) return x === undefined;
    // `b`'s `**` takes every rest of one or more non-empty segments: whatever `a` has left, if anything.
    if (y.type === "deep")
      return x !== undefined && a.slice(i).every((s) => s.type !== "literal" || s.value !== "");
    if (x === undefined || x.type === "deep") return false;
    if (!segmentWithin(x, y)) return false;
  }
}
