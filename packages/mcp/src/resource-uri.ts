/**
 * The URIs of a session's client-visible resources: the HTTP API's resource paths under `flowrt://sessions/`, one
 * for one, so the same routing rules hold (a `content` segment after `:ref` is the single resource's content, and
 * shadows a topic named `content`; a topic may span segments, or encode `/` as `%2F`).
 */
export const RESOURCE_URI_PREFIX = "flowrt://sessions/";

/** What a resource URI addresses. */
export type ResourceAddress =
  | { kind: "state"; sessionId: string }
  | { kind: "manifest"; sessionId: string }
  | { kind: "content"; sessionId: string; ref: string }
  | { kind: "page"; sessionId: string; ref: string; query: Record<string, string> }
  | { kind: "item"; sessionId: string; ref: string; topic: string }
  | { kind: "item-content"; sessionId: string; ref: string; topic: string };

const segment = encodeURIComponent;

export function sessionUri(sessionId: string, rest: string): string {
  return `${RESOURCE_URI_PREFIX}${segment(sessionId)}/${rest}`;
}

export const stateUri = (sessionId: string) => sessionUri(sessionId, "state");
export const contentUri = (sessionId: string, ref: string) =>
  sessionUri(sessionId, `resources/${segment(ref)}/content`);
export const pageUri = (sessionId: string, ref: string) => sessionUri(sessionId, `resources/${segment(ref)}`);

function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The address of a resource URI, or `undefined` when it names none. */
export function parseResourceUri(uri: string): ResourceAddress | undefined {
  if (!uri.startsWith(RESOURCE_URI_PREFIX)) return undefined;
  const rest = uri.slice(RESOURCE_URI_PREFIX.length).split("#")[0]!;
  const q = rest.indexOf("?");
  const path = q < 0 ? rest : rest.slice(0, q);
  const raw = path.split("/");
  const parts = raw.map(decoded);
  if (parts.some((part) => part === undefined || part === "")) return undefined;
  const [sessionId, what, ref, ...more] = parts as string[];
  if (sessionId === undefined) return undefined;
  if (what === "state" && ref === undefined) return { kind: "state", sessionId };
  if (what === "manifest" && ref === undefined) return { kind: "manifest", sessionId };
  if (what !== "resources" || ref === undefined) return undefined;
  if (more.length === 0) {
    const query: Record<string, string> = {};
    if (q >= 0) for (const [name, value] of new URLSearchParams(rest.slice(q + 1))) query[name] = value;
    return { kind: "page", sessionId, ref, query };
  }
  if (more.length === 1 && more[0] === "content") return { kind: "content", sessionId, ref };
  if (more.at(-1) === "content") {
    return { kind: "item-content", sessionId, ref, topic: more.slice(0, -1).join("/") };
  }
  return { kind: "item", sessionId, ref, topic: more.join("/") };
}
