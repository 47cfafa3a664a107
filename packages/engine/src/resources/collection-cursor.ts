import { FlowError } from "@flowrt/core";

/**
 * The opaque `cursor` of a collection page: where the previous page ended (its last key in key order), bound to the
 * collection it was made for (flow kind and accessor) and to the full-key prefix it listed. A page by cursor asks the
 * store for the keys after that one (`ListOptions.after`), so it costs what the first page costs at any depth.
 *
 * The text is base64url (no padding) of `{"v":1,"f":kind,"r":ref,"p":prefix,"k":key}`. Clients must treat it as
 * opaque; it is documented for tools (a benchmark building a cursor at a depth) and may change with `v`. It names
 * a position, not a permission: the page is read with the caller's access like any other, so a forged cursor can
 * only move within the collection's own keys.
 */

/** What a cursor is made for: a collection of one flow, listed under one full-key prefix. */
export interface CursorTarget {
  flowKind: string;
  ref: string;
  /** The full-key prefix the page lists (the collection's literal prefix when the query names none). */
  prefix: string;
}

const VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The cursor of the position after `key`. */
export function encodeCursor(target: CursorTarget, key: string): string {
  const body = { v: VERSION, f: target.flowKind, r: target.ref, p: target.prefix, k: key };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/**
 * The key a cursor continues after.
 * @throws FlowError `invalid-pagination` (`details.field: "cursor"`) for text that is no cursor of ours (malformed),
 * or one made for another collection or another `topicPrefix` (foreign), or naming a key outside the prefix.
 */
export function decodeCursor(target: CursorTarget, cursor: unknown): string {
  if (typeof cursor !== "string" || !BASE64URL.test(cursor)) throw malformed();
  const bytes = Buffer.from(cursor, "base64url");
  // Node's decoder skips what it cannot read: only text that encodes back to itself is a cursor we made.
  if (bytes.toString("base64url") !== cursor) throw malformed();
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw malformed();
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw malformed();
  const { v, f, r, p, k } = body as Record<string, unknown>;
  if (
    v !== VERSION ||
    typeof f !== "string" ||
    typeof r !== "string" ||
    typeof p !== "string" ||
    typeof k !== "string"
  )
    throw malformed();
  if (f !== target.flowKind || r !== target.ref || p !== target.prefix || !k.startsWith(p)) {
    throw new FlowError(
      "invalid-pagination",
      `cursor was not made for this page of "${target.ref}": pass the nextCursor of a page of the same collection and topicPrefix.`,
      { details: { field: "cursor" } },
    );
  }
  return k;
}

function malformed(): FlowError {
  return new FlowError(
    "invalid-pagination",
    "cursor is not a cursor of this API: pass a page's pagination.nextCursor unchanged.",
    { details: { field: "cursor" } },
  );
}
