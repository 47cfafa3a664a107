import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What an application meets when it loads the built packages, as the reference app does: every package
 * resolves through its `exports` map from ECMAScript modules and from CommonJS (`require` of an ES module,
 * Node 22.12 and later) to the same exports. Each is loaded by its own name from its own folder (a package
 * may import itself by name), in a plain Node process without the workspace's source condition.
 */
const packagesDir = join(import.meta.dirname, "..", "..", "..", "packages");
const packages = readdirSync(packagesDir).map((dir) => {
  const manifest = JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")) as {
    name: string;
  };
  return { dir: join(packagesDir, dir), name: manifest.name };
});

describe("the built packages load by name", () => {
  it.each(packages)("$name: import() and require() give the same exports", ({ dir, name }) => {
    const script = `
      const required = Object.keys(require(${JSON.stringify(name)})).sort();
      import(${JSON.stringify(name)}).then((imported) => {
        const keys = Object.keys(imported).filter((k) => k !== "default" && k !== "module.exports").sort();
        process.stdout.write(JSON.stringify({ required, imported: keys }));
      });`;
    const run = spawnSync(process.execPath, ["-e", script], { cwd: dir, encoding: "utf8" });
    expect(run.stderr).toBe("");
    const { required, imported } = JSON.parse(run.stdout) as { required: string[]; imported: string[] };
    expect(required.length).toBeGreaterThan(0);
    expect(required).toEqual(imported);
  });
});
