import { createHash } from "node:crypto";
import type { ScopeAddress } from "@flowrt/core";

/**
 * The file-name encoding of keys and ids: SHA-256 over the string's UTF-16 code units, as 64
 * lower-case hex digits. Hex names are path-safe on every platform and cannot differ only by case;
 * hashing UTF-16 (not UTF-8) keeps lone surrogates distinct. The original string is stored inside
 * the file and checked on read, so a collision could never return another key's data.
 */
export function nameOf(id: string): string {
  return createHash("sha256").update(Buffer.from(id, "utf16le")).digest("hex");
}

/** `<first two hex digits>/<name><ext>`: 256 sub-folders keep each folder's listing short. */
export function fannedPath(name: string, ext: string): string {
  return `${name.slice(0, 2)}/${name}${ext}`;
}

/** A stable string identity of a scope address (JSON escapes every code unit unambiguously). */
export function addressId(address: ScopeAddress): string {
  return JSON.stringify([address.scope, address.scopeId, address.bucket]);
}
