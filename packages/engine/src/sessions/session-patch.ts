import {
  FlowError,
  type JsonObject,
  type JsonValue,
  type SessionPatch,
  type SessionRecord,
} from "@flowrt/core";

/** The longest session title, in characters (Unicode code points). */
export const MAX_SESSION_TITLE_LENGTH = 200;

/** The most a session's metadata may hold once a patch is merged into it: its JSON text, in UTF-8 bytes. */
export const MAX_SESSION_METADATA_BYTES = 16 * 1024;

/** What may change on a session (`PATCH /sessions/:id`, `ctx.session.setTitle` / `setMetadata`). */
export interface SessionChange {
  /** A new title; `null` removes it. */
  title?: string | null;
  /** Merged into the stored metadata one level deep; a key set to `null` is removed. */
  metadata?: { [key: string]: JsonValue | null };
}

function invalid(field: string, message: string, limit?: number): FlowError {
  return new FlowError("invalid-request", message, {
    details: limit === undefined ? { field } : { field, limit },
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A title as stored: a string of at most {@link MAX_SESSION_TITLE_LENGTH} characters, or `null` (removed). */
export function checkTitle(title: unknown): string | null {
  if (title === null) return null;
  if (typeof title !== "string") throw invalid("title", '"title" must be a string or null.');
  // Code points, not UTF-16 units: an emoji is one character of a title.
  let length = 0;
  for (const _ of title) {
    if (++length > MAX_SESSION_TITLE_LENGTH) {
      throw invalid(
        "title",
        `"title" must be at most ${MAX_SESSION_TITLE_LENGTH} characters long.`,
        MAX_SESSION_TITLE_LENGTH,
      );
    }
  }
  return title;
}

/**
 * A metadata patch as stored: a plain object whose values JSON can hold (`null` removes a key). A value JSON
 * cannot hold (a BigInt, a cycle, a function) is refused rather than silently dropped or changed.
 */
export function checkMetadataPatch(metadata: unknown): { [key: string]: JsonValue | null } {
  if (!isPlainObject(metadata)) throw invalid("metadata", '"metadata" must be a JSON object.');
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(metadata));
  } catch (error) {
    throw invalid(
      "metadata",
      `"metadata" cannot be stored as JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  // `toJSON`, `undefined` members and functions change a value on its way to JSON: refused, not rewritten.
  for (const [key, value] of Object.entries(metadata)) {
    if (!Object.hasOwn(copy as object, key) || !sameJson(value, (copy as Record<string, unknown>)[key])) {
      throw invalid("metadata", `"metadata.${key}" is not a JSON value.`);
    }
  }
  return copy as { [key: string]: JsonValue | null };
}

/** Whether `value` is already the JSON value `json` (no `toJSON`, no dropped member, no non-finite number). */
function sameJson(value: unknown, json: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value === json;
  if (typeof value === "number") return value === json;
  if (Array.isArray(value)) {
    return (
      Array.isArray(json) && value.length === json.length && value.every((item, i) => sameJson(item, json[i]))
    );
  }
  if (!isPlainObject(value) || !isPlainObject(json)) return false;
  const keys = Object.keys(value);
  return (
    keys.length === Object.keys(json).length &&
    keys.every((key) => Object.hasOwn(json, key) && sameJson(value[key], json[key]))
  );
}

/**
 * What `PATCH /sessions/:id` (or `host.updateSession`) may change: `{ title?, metadata? }` and nothing else (an owner
 * field, or any other, is a 400 naming it: a body never changes who owns a session). The values themselves are
 * checked where the change is applied ({@link checkTitle}, {@link checkMetadataPatch}).
 */
export function readSessionChange(body: unknown): SessionChange {
  if (!isPlainObject(body)) {
    throw new FlowError("invalid-request", "A session change is an object { title?, metadata? }.");
  }
  const change: SessionChange = {};
  for (const key of Object.keys(body)) {
    if (key === "title") change.title = body.title as SessionChange["title"];
    else if (key === "metadata") change.metadata = body.metadata as SessionChange["metadata"];
    else throw invalid(key, `"${key}" cannot be changed: a session patch is { title?, metadata? }.`);
  }
  return change;
}

/** `metadata` with `patch` merged one level deep (a `null` value removes its key), as the store merges it. */
export function mergedMetadata(metadata: JsonObject, patch: { [key: string]: JsonValue | null }): JsonObject {
  const merged: JsonObject = { ...metadata };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * The store patch for `change` on `session` (as last read), refused when the merged metadata would be larger than
 * {@link MAX_SESSION_METADATA_BYTES}. The store merges atomically; the size is checked here, against the record
 * as read, so two concurrent patches of different keys can together pass the limit by at most one patch (the next
 * patch that grows it is refused).
 */
export function storePatch(session: SessionRecord, change: SessionChange): SessionPatch {
  const patch: SessionPatch = {};
  if (change.title !== undefined) patch.title = change.title;
  if (change.metadata !== undefined && Object.keys(change.metadata).length > 0) {
    const size = Buffer.byteLength(JSON.stringify(mergedMetadata(session.metadata, change.metadata)), "utf8");
    if (size > MAX_SESSION_METADATA_BYTES) {
      throw invalid(
        "metadata",
        `"metadata" would hold ${size} bytes of JSON once merged; the most a session keeps is ${MAX_SESSION_METADATA_BYTES}.`,
        MAX_SESSION_METADATA_BYTES,
      );
    }
    patch.metadataPatch = change.metadata;
  }
  return patch;
}
