import type { ChunkSnapshot } from "./chunk-snapshot.js";

/** Everything stored for one resource key. */
export interface Row {
  readonly key: string;
  /**
   * The state as JSON text; `null` is a tombstone: the key was deleted, and its version is kept so it
   * is never reused. Text rather than an object graph: copying in and out is one stringify/parse.
   */
  state: string | null;
  /** The content body, or `null` when none is stored; independent of `state` (a tombstone may hold none). */
  content: string | null;
  version: number;
  createdAt: number;
  accessedAt: number;
  /** The key-order index chunk that holds this row while it is live; `null` for a tombstone. */
  chunk: Chunk | null;
  /** The same for the index of keys with as many `/` as this one (leaf listing). */
  leafChunk: Chunk | null;
}

/** Which of a row's chunk pointers an index keeps (each row sits in two indexes). */
export type ChunkSlot = "chunk" | "leafChunk";

/** A run of consecutive live rows in key order (see `RowIndex`). */
export interface Chunk {
  /** The rows' keys, kept beside `rows` so a binary search reads only key strings. */
  keys: string[];
  rows: Row[];
  /**
   * The rows laid out contiguously for pages; `null` after any change to the chunk, rebuilt by the next
   * page that reads it.
   */
  snapshot: ChunkSnapshot | null;
}
