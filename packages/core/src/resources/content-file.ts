import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describeValue } from "./definition-issue.js";
import type { OptionReader } from "./option-reader.js";

/**
 * Resolves `contentFile` to an absolute path when the definition is made; the runtime reads the file lazily.
 * A bare string resolves from the working directory, `{ path, importerUrl }` relative to the declaring module.
 */
export function resolveContentFile(reader: OptionReader): string | undefined {
  const value = reader.raw("contentFile");
  if (value === undefined) return undefined;
  if (reader.has("content")) {
    reader.refuse(
      "contentFile",
      "content and contentFile are both set",
      "Keep one: content for an inline body, contentFile to load it from a file",
    );
  }
  if (typeof value === "string") {
    if (value === "")
      reader.refuse("contentFile", "contentFile is an empty string", "Set contentFile to a file path");
    return resolve(process.cwd(), value);
  }
  const fix = 'Pass contentFile: "path/from/cwd.md" or { path: "./file.md", importerUrl: import.meta.url }';
  if (typeof value !== "object" || value === null) {
    reader.refuse(
      "contentFile",
      `contentFile must be a string or { path, importerUrl } (got ${describeValue(value)})`,
      fix,
    );
  }
  const { path, importerUrl } = value as { path?: unknown; importerUrl?: unknown };
  if (typeof path !== "string" || path === "") {
    reader.refuse(
      "contentFile.path",
      `contentFile.path must be a non-empty string (got ${describeValue(path)})`,
      fix,
    );
  }
  if (!(typeof importerUrl === "string" || importerUrl instanceof URL)) {
    reader.refuse(
      "contentFile.importerUrl",
      `contentFile.importerUrl must be a file: URL (got ${describeValue(importerUrl)})`,
      fix,
    );
  }
  let url: URL;
  try {
    url = new URL(path, importerUrl);
  } catch {
    return reader.refuse(
      "contentFile.importerUrl",
      `contentFile.importerUrl ${describeValue(String(importerUrl))} is not a URL`,
      fix,
    );
  }
  if (url.protocol !== "file:") {
    reader.refuse(
      "contentFile.importerUrl",
      `contentFile.importerUrl must be a file: URL (got a ${url.protocol} URL)`,
      fix,
    );
  }
  return fileURLToPath(url);
}
