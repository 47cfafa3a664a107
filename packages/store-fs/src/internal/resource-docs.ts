import path from "node:path";
import { FlowError, type JsonObject, type ResourceStateRecord } from "@flowrt/core";
import { readdirOrEmpty } from "./fs-context.js";

/** The files of a resource key (its value and its content), and what the resource store reads from them. */

/** A key's value file. `state: null` is a tombstone: the key is deleted but keeps its version. */
export interface ValueDoc {
  key: string;
  version: number;
  /**
   * The key's life: a delete starts a new one (the tombstone's version), a create or an update keeps it. A content
   * row belongs to the life it was written in. Absent (0) in files written before lives existed.
   */
  life?: number;
  state: JsonObject | null;
  createdAt: number | null;
  accessedAt: number | null;
}

export interface ContentDoc {
  key: string;
  /** The life of the key's value when the content was written (absent: 0, see {@link ValueDoc.life}). */
  life?: number;
  content: string;
}

/** How many `.json` files the fanned-out folder `dir` (`<2 hex>/<name>.json`) holds. */
export async function countFanned(dir: string): Promise<number> {
  let count = 0;
  for (const fan of await readdirOrEmpty(dir)) {
    for (const name of await readdirOrEmpty(path.join(dir, fan))) if (name.endsWith(".json")) count++;
  }
  return count;
}

export function checkKey(stored: unknown, key: string, file: string): void {
  if (stored !== key)
    throw new FlowError("store-error", `The store file ${file} holds another key than its name says.`);
}

export function toRecord(doc: ValueDoc | null): ResourceStateRecord | null {
  if (!doc?.state) return null;
  return {
    key: doc.key,
    state: doc.state,
    version: doc.version,
    createdAt: doc.createdAt ?? 0,
    accessedAt: doc.accessedAt ?? doc.createdAt ?? 0,
  };
}

/** The life a content row written now belongs to: the value's, or 0 for a key never written. */
export function lifeOf(value: ValueDoc | null): number {
  return value?.life ?? 0;
}

/** Whether a content row belongs to the key's present life (a delete since then ended the row's life). */
export function contentIsCurrent(doc: ContentDoc, value: ValueDoc | null): boolean {
  return (doc.life ?? 0) === lifeOf(value);
}

export function currentOf(doc: ValueDoc | null): { value: JsonObject; version: number } | null {
  return doc?.state ? { value: doc.state, version: doc.version } : null;
}
