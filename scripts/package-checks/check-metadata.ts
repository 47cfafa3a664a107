import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PackageUnderCheck } from "./public-packages.js";

const REPOSITORY = "git+https://github.com/flowrt/flowrt.git";
const BUGS = "https://github.com/flowrt/flowrt/issues";

/**
 * What every published package declares so that npm, its page and its users find their way: where it lives, where
 * to report bugs, its licence (and the file), the Node it needs, that it is side-effect free, public access, and an
 * explicit file list. Each problem is one sentence naming the field.
 */
export function metadataProblems(pkg: PackageUnderCheck, licenseText: string): string[] {
  const m = pkg.manifest;
  const problems: string[] = [];
  const repository = typeof m.repository === "object" ? m.repository : undefined;
  if (repository?.type !== "git" || repository.url !== REPOSITORY || repository.directory !== pkg.relativeDir)
    problems.push(
      `repository must be { type: "git", url: "${REPOSITORY}", directory: "${pkg.relativeDir}" }`,
    );
  const homepage = `https://github.com/flowrt/flowrt/tree/main/${pkg.relativeDir}#readme`;
  if (m.homepage !== homepage) problems.push(`homepage must be "${homepage}"`);
  const bugs = typeof m.bugs === "object" ? m.bugs.url : m.bugs;
  if (bugs !== BUGS) problems.push(`bugs must be "${BUGS}"`);
  if (!m.description) problems.push("description is missing");
  if (!Array.isArray(m.keywords) || m.keywords.length < 2)
    problems.push("keywords must name at least two terms");
  if (m.license !== "MIT") problems.push('license must be "MIT"');
  const licenseFile = join(pkg.dir, "LICENSE");
  if (!existsSync(licenseFile)) problems.push("the LICENSE file is missing");
  else if (readFileSync(licenseFile, "utf8") !== licenseText)
    problems.push("LICENSE differs from the repository's LICENSE");
  if (m.engines?.node !== ">=22") problems.push('engines.node must be ">=22"');
  if (m.sideEffects === undefined || m.sideEffects === true)
    problems.push("sideEffects must be false, or list the files that have them");
  if (m.publishConfig?.access !== "public") problems.push('publishConfig.access must be "public"');
  if (!Array.isArray(m.files) || !m.files.includes("dist"))
    problems.push('files must list what is published ("dist")');
  if (!m.exports) problems.push("exports is missing");
  return problems;
}
