import { FlowError } from "@flowrt/core";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "../resources/client-input.js";

/**
 * The listings' pages: `limit` (see {@link DEFAULT_LIMITS} for each listing's default; a larger value than 200 served as 200, as collection pages) and an
 * opaque `cursor` naming the last row of the previous page. A cursor is base64url JSON of the listing it was made
 * for and a keyset position (`t`, the row's timestamp; `i`, its id), so the next page starts right after that row
 * whatever was added or removed meanwhile.
 */

/** Which listing a cursor pages: a cursor made for one is refused by the others. */
export type ListingKind = "sessions" | "session-requests" | "active-requests";

/** A row's place in a listing's order: its timestamp (`createdAt`, `startedAt`) and its id. */
export interface ListingPosition {
  at: string;
  id: string;
}

/** What a caller asks of a listing's page: `limit` and `cursor`, as a query string carries them or as values. */
export interface PageQuery {
  limit?: number | string;
  cursor?: string;
}

/** A listing page's window: how many rows, and after which one. */
export interface ListingWindow {
  limit: number;
  after?: ListingPosition;
}

/** The longest cursor accepted: made by {@link encodeCursor} from a timestamp and an id of at most 200 characters. */
const MAX_CURSOR_LENGTH = 1024;

function refuse(field: string, message: string): FlowError {
  return new FlowError("invalid-pagination", message, { details: { field } });
}

export function encodeCursor(kind: ListingKind, position: ListingPosition): string {
  return Buffer.from(JSON.stringify({ k: kind, t: position.at, i: position.id }), "utf8").toString(
    "base64url",
  );
}

/** The position a cursor names; `undefined` for no cursor (or an empty one); `invalid-pagination` when malformed. */
export function decodeCursor(kind: ListingKind, cursor: unknown): ListingPosition | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  if (typeof cursor !== "string") throw refuse("cursor", "cursor must be a string.");
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw refuse("cursor", "cursor is not one this listing made.");
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refuse("cursor", "cursor is not one this listing made.");
  }
  const { k, t, i } = (decoded ?? {}) as { k?: unknown; t?: unknown; i?: unknown };
  if (typeof decoded !== "object" || typeof t !== "string" || typeof i !== "string" || t === "" || i === "") {
    throw refuse("cursor", "cursor is not one this listing made.");
  }
  if (k !== kind) throw refuse("cursor", `cursor was made for another listing than ${kind}.`);
  return { at: t, id: i };
}

/**
 * How many rows a listing answers without `limit`: `/sessions` and `/active-requests` keep the 200 they answered
 * before they paged (a client that never asks for a second page sees what it saw), a session's requests 50 (as
 * collection pages).
 */
const DEFAULT_LIMITS: Readonly<Record<ListingKind, number>> = {
  sessions: MAX_PAGE_LIMIT,
  "active-requests": MAX_PAGE_LIMIT,
  "session-requests": DEFAULT_PAGE_LIMIT,
};

/** `limit` as the listings read it: a value above 200 is served as 200; anything else but 1… is a 400. */
export function readLimit(raw: unknown, fallback: number = DEFAULT_PAGE_LIMIT): number {
  if (raw === undefined || raw === "") return fallback;
  const value =
    typeof raw === "number" ? raw : typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw refuse("limit", `limit must be an integer of at least 1 (got ${JSON.stringify(raw)}).`);
  }
  return Math.min(value, MAX_PAGE_LIMIT);
}

/** A page window from a listing's `limit` and `cursor` query values. */
export function listingWindow(
  kind: ListingKind,
  query: { limit?: unknown; cursor?: unknown },
): ListingWindow {
  const limit = readLimit(query.limit, DEFAULT_LIMITS[kind]);
  const after = decodeCursor(kind, query.cursor);
  return after === undefined ? { limit } : { limit, after };
}
