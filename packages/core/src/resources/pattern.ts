import { FlowError } from "../errors.js";
import type { CollectionKey } from "../runtime-types.js";
import { describeValue, refuseOption, resourceLabel } from "./definition-issue.js";

/**
 * `wildcard`: one `*` segment (`files/*`); `deep`: a final `**` segment (`files/**`); `params`: one or more
 * `[name]` segments (`[topic]/notes`).
 */
export type PatternKind = "wildcard" | "deep" | "params";

export type PatternSegment =
  | { readonly type: "literal"; readonly value: string }
  | { readonly type: "wildcard" }
  | { readonly type: "deep" }
  | { readonly type: "param"; readonly name: string };

/** A collection key pattern, parsed once at definition time. */
export interface CompiledPattern {
  /** The pattern as written. */
  readonly source: string;
  readonly segments: readonly PatternSegment[];
  readonly kind: PatternKind;
  /** Parameter names in order of appearance (`params` patterns only). */
  readonly params: readonly string[];
  /** The literal segments before the first variable one, with a trailing `/` (`files/` for `files/*`), or `""`. */
  readonly literalPrefix: string;
  /** Whether a full storage key (a path) belongs to this collection. */
  matches(path: string): boolean;
  /**
   * The storage path of a runtime key. For `*`/`**` patterns the key is the part the wildcard stands for
   * (`readme.md` → `files/readme.md`); a string that already starts with the literal prefix and fits the
   * whole pattern is taken as the full path (`files/readme.md` → `files/readme.md`). For `[name]` patterns the key
   * is an object of parameters (`{ topic: "t1" }` → `t1/notes`) or a full path that fits the pattern.
   * @throws FlowError `invalid-key`, naming the resource and the pattern, when the key does not fit.
   */
  toPath(key: CollectionKey, resourceName?: string): string;
  /**
   * The runtime key of a storage path: the wildcard's part for `*`/`**` patterns, the parameters for `[name]`
   * patterns. Inverse of {@link CompiledPattern.toPath}.
   * @throws FlowError `invalid-key` when the path does not fit.
   */
  fromPath(path: string, resourceName?: string): CollectionKey;
  /**
   * The full-key prefix to list with: a caller's prefix that already starts with the literal prefix is used as
   * given (it is a full-key prefix, as the HTTP `topicPrefix` is), any other is appended to the literal prefix.
   * The result never reaches outside the collection's literal prefix; filter listed keys with `matches`.
   */
  listPrefix(prefix?: string): string;
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses a collection pattern. Rules: segments are separated by `/` and never empty; a segment is a literal
 * (no `*`, `[` or `]`), `*` (exactly one non-empty segment), `**` (one or more segments, last segment only) or
 * `[name]` (one non-empty segment, bound to `name`). A pattern has either exactly one wildcard (`*` or `**`) or
 * one or more distinct `[name]` parameters, never both.
 * @throws DefinitionError naming the resource (`name`, else the pattern) and the fix.
 */
export function compilePattern(
  pattern: string,
  options: { name?: string | undefined } = {},
): CompiledPattern {
  const label = resourceLabel(options.name, typeof pattern === "string" ? pattern : undefined);
  function refuse(problem: string, fix: string): never {
    return refuseOption(label, "pattern", problem, fix);
  }
  if (typeof pattern !== "string" || pattern.length === 0) {
    refuse(
      `pattern must be a non-empty string (got ${describeValue(pattern)})`,
      'Set pattern to a key pattern such as "files/*", "files/**" or "[topic]/notes"',
    );
  }
  const raw = pattern.split("/");
  const segments: PatternSegment[] = [];
  const params: string[] = [];
  let wildcards = 0;
  raw.forEach((text, index) => {
    if (text === "") {
      refuse(
        `pattern "${pattern}" has an empty segment`,
        'Remove leading, trailing and doubled slashes (for example write "files/*")',
      );
    }
    if (text === "**") {
      if (index !== raw.length - 1) {
        refuse(
          `pattern "${pattern}" uses ** before the last segment`,
          'Make ** the last segment (as in "files/**"), or use * for one segment',
        );
      }
      wildcards++;
      segments.push({ type: "deep" });
    } else if (text === "*") {
      wildcards++;
      segments.push({ type: "wildcard" });
    } else if (text.startsWith("[") && text.endsWith("]")) {
      const name = text.slice(1, -1);
      if (!PARAM_NAME.test(name)) {
        refuse(
          `pattern "${pattern}" has an invalid parameter "${text}"`,
          "Name parameters with letters, digits and _ (for example [topic])",
        );
      }
      if (params.includes(name)) {
        refuse(`pattern "${pattern}" declares parameter [${name}] twice`, "Give each parameter its own name");
      }
      params.push(name);
      segments.push({ type: "param", name });
    } else if (/[*[\]]/.test(text)) {
      refuse(
        `pattern "${pattern}" mixes literal text with *, ** or [ ] in segment "${text}"`,
        'A wildcard or parameter must fill a whole segment (for example "notes/*" or "[topic]/notes")',
      );
    } else {
      segments.push({ type: "literal", value: text });
    }
  });
  if (wildcards === 0 && params.length === 0) {
    refuse(
      `pattern "${pattern}" has no variable segment`,
      'Add a *, ** or [name] segment (for example "notes/*"), or use defineResource for a single resource',
    );
  }
  if (wildcards > 1) {
    refuse(
      `pattern "${pattern}" has more than one wildcard`,
      "Use one * or **, or name each variable segment with [name]",
    );
  }
  if (wildcards > 0 && params.length > 0) {
    refuse(
      `pattern "${pattern}" mixes wildcards with [name] parameters`,
      "Use either one wildcard or only [name] parameters",
    );
  }
  const kind: PatternKind =
    params.length > 0 ? "params" : segments.some((s) => s.type === "deep") ? "deep" : "wildcard";
  const firstVariable = segments.findIndex((s) => s.type !== "literal");
  const literalPrefix = raw
    .slice(0, firstVariable)
    .map((s) => `${s}/`)
    .join("");
  return Object.freeze(
    buildCompiled(pattern, Object.freeze(segments), kind, Object.freeze(params), literalPrefix, options.name),
  );
}

type Capture = { wildcard: string; params: Record<string, string> };

function buildCompiled(
  source: string,
  segments: readonly PatternSegment[],
  kind: PatternKind,
  params: readonly string[],
  literalPrefix: string,
  definedName: string | undefined,
): CompiledPattern {
  const capture = (path: string): Capture | null => {
    if (typeof path !== "string") return null;
    const parts = path.split("/");
    const result: Capture = { wildcard: "", params: {} };
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (segment.type === "deep") {
        const rest = parts.slice(i);
        if (rest.length === 0 || rest.some((p) => p === "")) return null;
        result.wildcard = rest.join("/");
        return result;
      }
      const part = parts[i];
      if (part === undefined || part === "") return null;
      if (segment.type === "literal" && part !== segment.value) return null;
      if (segment.type === "wildcard") result.wildcard = part;
      if (segment.type === "param") result.params[segment.name] = part;
    }
    return parts.length === segments.length ? result : null;
  };

  const invalidKey = (key: unknown, resourceName: string | undefined): FlowError => {
    const hint =
      kind === "wildcard"
        ? `Pass one non-empty segment without "/" (the part * stands for) or the full path`
        : kind === "deep"
          ? `Pass one or more non-empty segments (the part ** stands for) or the full path`
          : `Pass an object with exactly ${params.map((p) => `"${p}"`).join(", ")} as non-empty strings without "/", or the full path`;
    const who = resourceName ?? definedName;
    const rendered = typeof key === "string" ? JSON.stringify(key) : safeJson(key);
    return new FlowError(
      "invalid-key",
      `${who === undefined ? "Collection" : `Resource "${who}"`}: key ${rendered} does not fit pattern "${source}". ${hint}.`,
      { details: { resource: who, pattern: source } },
    );
  };

  const fill = (values: Capture): string =>
    segments
      .map((s) =>
        s.type === "literal" ? s.value : s.type === "param" ? (values.params[s.name] ?? "") : values.wildcard,
      )
      .join("/");

  return {
    source,
    segments,
    kind,
    params,
    literalPrefix,
    matches: (path) => capture(path) !== null,
    toPath(key, resourceName) {
      if (typeof key === "string") {
        if (key.startsWith(literalPrefix) && capture(key) !== null) return key;
        if (kind !== "params") {
          const path = fill({ wildcard: key, params: {} });
          const captured = capture(path);
          if (captured !== null && captured.wildcard === key) return path;
        }
        throw invalidKey(key, resourceName);
      }
      if (kind !== "params" || typeof key !== "object" || key === null || Array.isArray(key)) {
        throw invalidKey(key, resourceName);
      }
      const given = Object.keys(key);
      const fits =
        given.length === params.length &&
        params.every((p) => {
          const value = (key as Record<string, unknown>)[p];
          return Object.hasOwn(key, p) && typeof value === "string" && value !== "" && !value.includes("/");
        });
      if (!fits) throw invalidKey(key, resourceName);
      return fill({ wildcard: "", params: key });
    },
    fromPath(path, resourceName) {
      const captured = capture(path);
      if (captured === null) throw invalidKey(path, resourceName);
      return kind === "params" ? captured.params : captured.wildcard;
    },
    listPrefix(prefix = "") {
      return prefix.startsWith(literalPrefix) ? prefix : literalPrefix + prefix;
    },
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? describeValue(value);
  } catch {
    return describeValue(value);
  }
}
