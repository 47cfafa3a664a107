import { randomUUID } from "node:crypto";

/**
 * A random UUID as one flat string. Node builds `randomUUID()`'s answer by concatenating twenty pieces,
 * which V8 keeps as a tree of about fourteen cons-string nodes; an id held by a stored row, a map key and
 * every copy of a record keeps that tree alive (about 430 bytes and fourteen objects per id for the
 * garbage collector to copy and mark). `toLowerCase`, a no-op on hex digits and dashes, returns a flat copy.
 */
export function newId(): string {
  return randomUUID().toLowerCase();
}
