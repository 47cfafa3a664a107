import { FlowError } from "@flowrt/core";

/** What a client sends the resource routes: list queries and create bodies, read and refused here. */

/** List page limits of the specification. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

export interface ListQuery {
  /** Strings are accepted as they arrive in a query string. @default 50, at most 200 */
  limit?: number | string;
  /** @default 0 */
  offset?: number | string;
  /** Full storage-key prefix (e.g. `artifacts/projects/p1`). */
  topicPrefix?: string;
  /**
   * The opaque `pagination.nextCursor` of the previous page: a page by cursor starts after the key that page ended
   * on (keyset). For an external collection, the app's own cursor, handed to its `search`. Not with `offset`.
   */
  cursor?: string;
}

/** An `invalid-request` refusal of a client's body or query. */
export function badRequest(message: string, details?: Record<string, unknown>): FlowError {
  return new FlowError("invalid-request", message, details === undefined ? {} : { details });
}

function readInteger(name: string, raw: number | string | undefined, fallback: number, least = 0): number {
  if (raw === undefined || raw === "") return fallback;
  const value = typeof raw === "number" ? raw : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < least) {
    const kind = least === 0 ? "a non-negative integer" : `an integer of at least ${least}`;
    throw new FlowError("invalid-pagination", `${name} must be ${kind} (got ${JSON.stringify(raw)}).`, {
      details: { field: name },
    });
  }
  return value;
}

/** `limit` defaults to 50 and is capped at 200 (a larger value is served as 200, not refused). */
export function parsePagination(query: ListQuery): { limit: number; offset: number } {
  const limit = readInteger("limit", query.limit, DEFAULT_PAGE_LIMIT, 1);
  return { limit: Math.min(limit, MAX_PAGE_LIMIT), offset: readInteger("offset", query.offset, 0) };
}

/**
 * The window of a collection page: `limit` as {@link parsePagination} reads it, and either an `offset` (default 0) or
 * the `cursor` of a previous page (still to be decoded against the collection).
 * @throws FlowError `invalid-pagination` for a bad `limit` or `offset`, and for `cursor` and `offset` together (400,
 * `details.field: "offset"`): a page starts at one place.
 */
export function parsePageWindow(
  query: ListQuery,
):
  | { limit: number; offset: number; cursor: undefined }
  | { limit: number; offset: undefined; cursor: string } {
  if (query.cursor === undefined) return { ...parsePagination(query), cursor: undefined };
  if (typeof query.cursor !== "string") {
    throw new FlowError("invalid-pagination", "cursor must be a string.", { details: { field: "cursor" } });
  }
  if (query.offset !== undefined) {
    throw new FlowError(
      "invalid-pagination",
      "Pass either offset or cursor, not both: a page by cursor starts where the cursor's page ended.",
      { details: { field: "offset" } },
    );
  }
  return { limit: parsePagination({ limit: query.limit }).limit, offset: undefined, cursor: query.cursor };
}

/**
 * The longest topic a client may create: its item routes must stay addressable, and a percent-encoded topic
 * three times as long still fits Node's 16 KiB request head.
 */
export const MAX_CLIENT_TOPIC_LENGTH = 1024;

export function readCreateBody(body: unknown): { topic: string; content?: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest('The body must be { "topic": string, "content"?: string }.');
  }
  const { topic, content } = body as { topic?: unknown; content?: unknown };
  if (typeof topic !== "string" || topic === "")
    throw badRequest('"topic" must be a non-empty string.', { field: "topic" });
  // An item no URL could name (a lone surrogate has no percent-encoding; an over-long topic no request line).
  if (/\p{Cs}/u.test(topic))
    throw badRequest('"topic" must be well-formed Unicode (it holds a lone surrogate).', { field: "topic" });
  if (topic.length > MAX_CLIENT_TOPIC_LENGTH) {
    throw badRequest(`"topic" must be at most ${MAX_CLIENT_TOPIC_LENGTH} characters long.`, {
      field: "topic",
    });
  }
  if (content !== undefined && typeof content !== "string")
    throw badRequest('"content" must be a string.', { field: "content" });
  return content === undefined ? { topic } : { topic, content };
}
