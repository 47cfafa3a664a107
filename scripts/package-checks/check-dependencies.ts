import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { moduleImports, packageOf } from "./module-imports.js";
import type { PackageUnderCheck } from "./public-packages.js";

function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((file) => file.endsWith(suffix) && statSync(file).isFile());
}

/** The `.d.ts` files a consumer's TypeScript reads: the types entry and every declaration file it reaches. */
function reachableDeclarations(entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const { specifier } of moduleImports(file)) {
      if (!specifier.startsWith(".")) continue;
      queue.push(resolve(dirname(file), specifier).replace(/\.js$/, ".d.ts"));
    }
  }
  return [...seen];
}

/**
 * Whether a package's runtime `dependencies` are exactly what its published code imports, read from its build:
 * every package its `dist` (and `bin`) imports is a dependency or a peer; every dependency is imported; an optional
 * peer is only ever loaded with `import("…")` (a static import would fail for users who did not install it); and the
 * declaration files a consumer's TypeScript reads import no optional peer, nor anything undeclared.
 */
export function dependencyProblems(pkg: PackageUnderCheck): string[] {
  const m = pkg.manifest;
  const dependencies = new Set(Object.keys(m.dependencies ?? {}));
  const peers = new Set(Object.keys(m.peerDependencies ?? {}));
  const optionalPeers = new Set(
    [...peers].filter((name) => m.peerDependenciesMeta?.[name]?.optional === true),
  );
  const problems: string[] = [];
  const dist = join(pkg.dir, "dist");
  if (!existsSync(join(dist, "index.js"))) return [`${pkg.relativeDir}/dist is not built: run pnpm build`];

  const imported = new Set<string>();
  for (const file of [...filesUnder(dist, ".js"), ...filesUnder(join(pkg.dir, "bin"), ".js")]) {
    const where = file.slice(pkg.dir.length + 1);
    for (const { specifier, dynamic } of moduleImports(file)) {
      const name = packageOf(specifier);
      if (name === undefined || name === m.name) continue;
      imported.add(name);
      if (!dependencies.has(name) && !peers.has(name))
        problems.push(`${where} imports "${name}", which is neither a dependency nor a peer dependency`);
      if (optionalPeers.has(name) && !dynamic)
        problems.push(
          `${where} imports the optional peer "${name}" statically; load it with import() when used`,
        );
    }
  }
  for (const name of dependencies) {
    if (!imported.has(name)) problems.push(`dependency "${name}" is not imported by the published code`);
  }

  const typesEntry = join(pkg.dir, "dist", "index.d.ts");
  for (const file of reachableDeclarations(typesEntry)) {
    const where = file.slice(pkg.dir.length + 1);
    for (const { specifier } of moduleImports(file)) {
      const name = packageOf(specifier);
      if (name === undefined || name === m.name) continue;
      if (optionalPeers.has(name))
        problems.push(
          `${where} (types) imports the optional peer "${name}": users without it get broken types`,
        );
      else if (!dependencies.has(name) && !peers.has(name))
        problems.push(
          `${where} (types) imports "${name}", which is neither a dependency nor a peer dependency`,
        );
    }
  }
  return problems;
}
