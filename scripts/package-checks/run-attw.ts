import { execFile } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./public-packages.js";

/**
 * Are the Types Wrong? on a packed tarball, with the profile for ESM-only packages (`esm-only`: resolutions from
 * CommonJS and node10 are not judged, since these packages publish no CommonJS). Resolves to its problems, one line
 * each (none when the types resolve everywhere it judges).
 */
export function attwProblems(tarball: string): Promise<string[]> {
  const bin = join(repoRoot, "node_modules", ".bin", "attw");
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      [tarball, "--profile", "esm-only", "--format", "json", "--no-color"],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => {
        let report: { analysis?: { problems?: unknown[] } };
        try {
          report = JSON.parse(stdout) as typeof report;
        } catch {
          reject(error ?? new Error(`attw printed no JSON: ${stdout.slice(0, 500)}`));
          return;
        }
        const problems = (report.analysis?.problems ?? []) as {
          kind: string;
          entrypoint?: string;
          resolutionKind?: string;
        }[];
        const judged = problems.filter(
          (p) => p.resolutionKind !== "node10" && p.resolutionKind !== "node16-cjs",
        );
        const lines = judged.map(
          (p) => `${p.kind} (${p.entrypoint ?? "?"}, ${p.resolutionKind ?? "any resolution"})`,
        );
        // attw's own verdict (its exit code) counts too: a failure without a listed problem is still a failure.
        if (lines.length === 0 && error)
          lines.push(`attw exited with ${error.code}: ${stdout.slice(0, 500)}`);
        resolve(lines);
      },
    );
  });
}
