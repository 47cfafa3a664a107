import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { dependencyProblems } from "./check-dependencies.js";
import { metadataProblems } from "./check-metadata.js";
import { pack } from "./pack.js";
import { type PackageUnderCheck, publicPackages, readPackage, repoRoot } from "./public-packages.js";
import { attwProblems } from "./run-attw.js";
import { publintProblems } from "./run-publint.js";

// Every published package, packed as it would be published, checked by publint and Are the Types Wrong? and read
// for its metadata and its dependencies. Needs the build (`pnpm test` builds first).
const packages = publicPackages();
const licenseText = readFileSync(join(repoRoot, "LICENSE"), "utf8");
const scratch = mkdtempSync(join(tmpdir(), "flowrt-package-checks-"));
const tarballs = new Map<string, Promise<string>>();

/** The package's tarball, packed once for all its checks. */
function tarballOf(pkg: PackageUnderCheck): Promise<string> {
  let made = tarballs.get(pkg.dir);
  if (made === undefined) {
    made = pack(pkg.dir, scratch);
    tarballs.set(pkg.dir, made);
  }
  return made;
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("finds the published packages", () => {
  expect(packages.map((p) => p.manifest.name)).toContain("@flowrt/engine");
  expect(packages.length).toBeGreaterThanOrEqual(11);
});

describe.each(packages.map((pkg) => [pkg.manifest.name, pkg] as const))("%s", (_name, pkg) => {
  test("declares its repository, homepage, bugs, licence (with the file), engines, sideEffects, access, files", () => {
    expect(metadataProblems(pkg, licenseText)).toEqual([]);
  });

  test("depends on exactly what its build imports; optional peers only through import()", () => {
    expect(dependencyProblems(pkg)).toEqual([]);
  });

  test("publint (strict) finds nothing in its tarball", async () => {
    const { problems } = await publintProblems(await tarballOf(pkg));
    expect(problems).toEqual([]);
  }, 120_000);

  test("Are the Types Wrong? (esm-only profile) finds nothing in its tarball", async () => {
    expect(await attwProblems(await tarballOf(pkg))).toEqual([]);
  }, 120_000);

  test("its tarball carries LICENSE, README and the build; no sources, maps or tests", async () => {
    const tarball = await tarballOf(pkg);
    const files = tarballFiles(tarball);
    expect(files).toContain("package/LICENSE");
    expect(files).toContain("package/README.md");
    expect(files).toContain("package/dist/index.js");
    expect(files).toContain("package/dist/index.d.ts");
    expect(files.filter((file) => /^package\/src\/|\.map$|\.test(-d)?\.ts$|\/testing\//.test(file))).toEqual(
      [],
    );
    // The workspace's own export condition (its sources) is not published.
    expect(packedManifest(tarball)).not.toContain("@flowrt/source");
  }, 120_000);
});

/** The package.json a tarball publishes. */
function packedManifest(tarball: string): string {
  return execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
}

/** The file names in a tarball (`tar -tzf`). */
function tarballFiles(tarball: string): string[] {
  return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
}

describe("the checks catch a broken package (planted flaws)", () => {
  let broken: PackageUnderCheck;
  let tarball: string;

  beforeAll(async () => {
    const dir = join(scratch, "broken-package");
    mkdirSync(join(dir, "dist"), { recursive: true });
    const manifest = {
      name: "broken-package",
      version: "1.0.0",
      type: "module",
      license: "ISC",
      files: ["dist"],
      exports: { ".": { types: "./dist/missing.d.ts", default: "./dist/index.js" } },
      dependencies: { "unused-dep": "^1.0.0" },
      peerDependencies: { "optional-peer": "^1.0.0" },
      peerDependenciesMeta: { "optional-peer": { optional: true } },
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    writeFileSync(
      join(dir, "dist", "index.js"),
      'import "undeclared-dep";\nimport { x } from "optional-peer";\nexport const y = x;\n',
    );
    writeFileSync(join(dir, "dist", "index.d.ts"), 'export declare const y: import("optional-peer").X;\n');
    broken = readPackage(dir, "packages/broken-package");
    tarball = await pack(dir, scratch);
  }, 120_000);

  test("metadata: every missing field is named", () => {
    const problems = metadataProblems(broken, licenseText);
    for (const field of [
      "repository",
      "homepage",
      "bugs",
      "keywords",
      "license",
      "LICENSE",
      "engines",
      "sideEffects",
    ])
      expect(problems.join("\n")).toContain(field);
    expect(problems.join("\n")).toContain("publishConfig.access");
  });

  test("dependencies: undeclared, unused, a static optional peer, an optional peer in the types", () => {
    expect(dependencyProblems(broken)).toEqual([
      'dist/index.js imports "undeclared-dep", which is neither a dependency nor a peer dependency',
      'dist/index.js imports the optional peer "optional-peer" statically; load it with import() when used',
      'dependency "unused-dep" is not imported by the published code',
      'dist/index.d.ts (types) imports the optional peer "optional-peer": users without it get broken types',
    ]);
  });

  test("publint: the types entry that is not in the tarball", async () => {
    const { problems } = await publintProblems(tarball);
    expect(problems.join("\n")).toContain("missing.d.ts");
  }, 120_000);

  test("Are the Types Wrong?: the types that do not resolve", async () => {
    expect(await attwProblems(tarball)).not.toEqual([]);
  }, 120_000);
});
