import { readFileSync } from "node:fs";

/** A file of the page, as shipped in the package's `static/` folder, and its media type. */
export interface StaticAsset {
  body: string;
  type: string;
}

const FILES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "inspector.js": "text/javascript; charset=utf-8",
  "inspector.css": "text/css; charset=utf-8",
};

/**
 * The page's files, read once when the inspector is mounted (no build step: plain HTML, an ES module and CSS).
 * `static/` sits beside `src/` and `dist/`, so the same URL finds it from either.
 */
export function loadStaticAssets(): Map<string, StaticAsset> {
  const folder = new URL("../static/", import.meta.url);
  const assets = new Map<string, StaticAsset>();
  for (const [name, type] of Object.entries(FILES)) {
    assets.set(name, { body: readFileSync(new URL(name, folder), "utf8"), type });
  }
  return assets;
}
