import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** A package's manifest, as far as these checks read it. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  keywords?: string[];
  homepage?: string;
  bugs?: string | { url?: string };
  repository?: { type?: string; url?: string; directory?: string } | string;
  license?: string;
  engines?: Record<string, string>;
  sideEffects?: boolean | string[];
  files?: string[];
  publishConfig?: { access?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  exports?: unknown;
}

export interface PackageUnderCheck {
  /** The folder, relative to the repository: `packages/engine`. */
  relativeDir: string;
  dir: string;
  manifest: Manifest;
}

export function readPackage(dir: string, relativeDir: string): PackageUnderCheck {
  return {
    dir,
    relativeDir,
    manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest,
  };
}

/** Every package under `packages/` that is published (not `private`). */
export function publicPackages(): PackageUnderCheck[] {
  const root = join(repoRoot, "packages");
  return readdirSync(root)
    .filter((name) => existsSync(join(root, name, "package.json")))
    .map((name) => readPackage(join(root, name), `packages/${name}`))
    .filter((pkg) => pkg.manifest.private !== true);
}
