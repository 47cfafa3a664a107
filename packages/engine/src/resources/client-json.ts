/**
 * The JSON-text fast path of client reads, in one place: a page or an item of whole stored states (a collection
 * without a projection) is laid out from the text the store holds (`listText`, `getStateText`), without parsing
 * and serialising it again. It gives exactly the bytes `JSON.stringify` would make of the parsed page; a store
 * without text reads, or a collection with a projection, goes the parsed way. Measured on a 50-item page in
 * process: 30–36 µs laid out from text against 75–85 µs parsed and serialised again.
 */

import type { ResourceStateTextRecord } from "@flowrt/core";
import type { CollectionRuntime } from "./collection.js";
import type { KeyPage, PageWindow } from "./collection-keys.js";

/**
 * A collection page (from an offset or after a key) with each state as the JSON text the store holds (no parse), for
 * a caller that only passes the states on; `null` when the store has no text reads.
 */
export function pageText(
  runtime: CollectionRuntime,
  prefix: string | undefined,
  window: PageWindow,
  limit: number,
): Promise<KeyPage<ResourceStateTextRecord>> | null {
  const store = runtime.store;
  if (store.listText === undefined) return null;
  return runtime.keys.page((address, options) => store.listText!(address, options), prefix, window, limit);
}

/** A live item's record with its state as JSON text; `undefined` when the store has no text reads. */
export function readRecordText(
  runtime: CollectionRuntime,
  path: string,
): Promise<ResourceStateTextRecord> | undefined {
  const store = runtime.store;
  if (store.getStateText === undefined) return undefined;
  return runtime.readLive(path, (address, key) => store.getStateText!(address, key));
}

/** `{ topic, clientData }` of a whole stored state, laid out from its text (what JSON.stringify would make). */
export function itemJson(record: { key: string; stateText: string }): string {
  return `{"topic":${jsonString(record.key)},"clientData":${record.stateText}}`;
}

/**
 * `JSON.stringify(text)`, without its escaping pass for the usual key that needs none: no quote,
 * backslash, control character or surrogate (a pair is left to JSON.stringify as well).
 */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** `{"items":[…],"pagination":…}` of whole stored states, from their text. */
export function pageJson(records: readonly { key: string; stateText: string }[], pagination: object): string {
  // Appended piece by piece: the transport flattens the result once when it measures and writes it.
  let out = '{"items":[';
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    out += i === 0 ? itemJson(record) : `,${itemJson(record)}`;
  }
  return `${out}],"pagination":${JSON.stringify(pagination)}}`;
}
