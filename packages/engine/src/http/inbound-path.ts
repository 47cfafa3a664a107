/**
 * Custom inbound route paths, in Express's route syntax (path-to-regexp 8, as Express 5 reads them):
 * literal text, `:name` (one segment), `*name` (one or more segments), `{…}` (an optional part), `\` to
 * escape the next character. Matched as Express matches routes: any case, the whole path, one trailing `/`
 * optional. No parameter is handed on: a handler reads what it needs from its request's URL.
 */

const NAME_START = /^[$_\p{ID_Start}]$/u;
// ZWNJ and ZWJ may continue a name (as in JavaScript identifiers): tested apart, not in one class.
const NAME_CONTINUE = /^(?:[$\p{ID_Continue}]|\u200c|\u200d)$/u;
/** Characters path-to-regexp keeps for itself: a path that uses them unescaped is refused. */
const RESERVED = new Set(["}", "(", ")", "[", "]", "+", "?", "!"]);

type Part = { text: string } | { param: "segment" | "rest" } | { optional: Part[] };

function escapeRegExp(text: string): string {
  return text.replace(/[.+*?^${}()[\]|/\\]/g, "\\$&");
}

/** Parses a route path into parts; throws a `TypeError` saying what is wrong and where. */
function parse(path: string): Part[] {
  const chars = [...path];
  let index = 0;
  const until = (end: string): Part[] => {
    const parts: Part[] = [];
    let text = "";
    const flush = () => {
      if (text !== "") parts.push({ text });
      text = "";
    };
    while (index < chars.length) {
      const char = chars[index++]!;
      if (char === end) {
        flush();
        return parts;
      }
      if (char === "\\") {
        if (index === chars.length) throw new TypeError(`Unexpected end after \\ at index ${index}`);
        text += chars[index++];
      } else if (char === ":" || char === "*") {
        let name = "";
        if (NAME_START.test(chars[index] ?? "")) {
          do name += chars[index++];
          while (NAME_CONTINUE.test(chars[index] ?? ""));
        } else if (chars[index] === '"') {
          const open = index++;
          while (index < chars.length && chars[index] !== '"') name += chars[index++];
          if (index++ >= chars.length) throw new TypeError(`Unterminated quote at index ${open}`);
        }
        if (name === "") throw new TypeError(`Missing parameter name at index ${index}`);
        flush();
        parts.push({ param: char === ":" ? "segment" : "rest" });
      } else if (char === "{") {
        flush();
        parts.push({ optional: until("}") });
      } else if (RESERVED.has(char)) {
        throw new TypeError(`Unexpected ${char} at index ${index - 1}`);
      } else {
        text += char;
      }
    }
    if (end !== "") throw new TypeError(`Unexpected end at index ${index}, expected ${end}`);
    flush();
    return parts;
  };
  return until("");
}

function source(parts: Part[]): string {
  let out = "";
  for (const part of parts) {
    if ("text" in part) out += escapeRegExp(part.text);
    else if ("optional" in part) out += `(?:${source(part.optional)})?`;
    else out += part.param === "segment" ? "[^/]+?" : "[\\s\\S]+?";
  }
  return out;
}

/**
 * The matcher of an inbound route path, tested against a request's percent-encoded pathname (where the
 * router is mounted). Throws a `TypeError` for a path Express could not route.
 */
export function compileInboundPath(path: string): RegExp {
  // Trailing slashes of the route itself are loosened away, as Express does for non-strict routing.
  const loosened = path === "/" ? path : path.replace(/\/+$/, "");
  return new RegExp(`^(?:${source(parse(loosened))})(?:/$)?$`, "i");
}
