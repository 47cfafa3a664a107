import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { loadEnvFile } from "./env-file.js";

const dir = mkdtempSync(join(tmpdir(), "flowrt-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("fills unset variables from KEY=value lines (comments, quotes, export-less dotenv); set ones are kept", () => {
  const file = join(dir, "a.env");
  writeFileSync(file, '# defaults\nPORT=4000\nHOST="0.0.0.0"\nDATABASE_URL=postgres://a@b/c\nEMPTY=\n');
  const env: NodeJS.ProcessEnv = { PORT: "5000" };
  expect(loadEnvFile(file, env).sort()).toEqual(["DATABASE_URL", "EMPTY", "HOST"]);
  expect(env).toEqual({ PORT: "5000", HOST: "0.0.0.0", DATABASE_URL: "postgres://a@b/c", EMPTY: "" });
});

test("a file that is not there is a usage error naming it", () => {
  expect(() => loadEnvFile(join(dir, "missing.env"), {})).toThrow(
    `--env-file ${join(dir, "missing.env")}: no such file.`,
  );
});
