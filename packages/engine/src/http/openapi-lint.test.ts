import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { defineFlow, handler } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withHost } from "../testing/fixtures.js";
import { openApiAppDocument } from "../testing/openapi-app.js";
import { createHttpHandler } from "./handler.js";

const run = promisify(execFile);

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

/** Redocly CLI's own entry (its `bin`), run on this Node. */
async function redoclyCli(): Promise<string> {
  const manifest = createRequire(import.meta.url).resolve("@redocly/cli/package.json");
  const { bin } = JSON.parse(await readFile(manifest, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifest), bin.redocly!);
}

/**
 * `redocly lint --extends recommended-strict` (every rule of `recommended`, warnings raised to errors) on a
 * document: the problems it reports, whatever their severity.
 */
async function lint(document: object): Promise<LintProblem[]> {
  const dir = await mkdtemp(join(tmpdir(), "flowrt-openapi-"));
  try {
    const file = join(dir, "openapi.json");
    await writeFile(file, JSON.stringify(document));
    const args = [await redoclyCli(), "lint", file, "--extends", "recommended-strict", "--format", "json"];
    // No usage report, no update check: the test runs offline.
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
    const output = await run(process.execPath, args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }).catch(
      // Exit code 1 when it found errors: the report is on stdout all the same.
      (error: { stdout?: string }) => {
        if (!error.stdout) throw error;
        return { stdout: error.stdout };
      },
    );
    return (JSON.parse(output.stdout) as { problems: LintProblem[] }).problems;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const summary = (problems: LintProblem[]) =>
  problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);

describe("the OpenAPI document under a strict linter (Redocly CLI, recommended-strict)", () => {
  it("reports no problem, error or warning, for a host with realistic flows", async () => {
    const problems = await lint(await openApiAppDocument());
    expect(summary(problems)).toEqual([]);
  }, 60_000);

  it("reports no problem for a host without any resolver (no security scheme listed, none asked for)", async () => {
    const open = defineFlow({
      kind: "open",
      actions: {
        echo: handler({ name: "echo", inputSchema: z.object({ text: z.string() }), execute: async (i) => i }),
      },
    });
    const options = { flows: [open], openapi: { info: { license: { name: "MIT", identifier: "MIT" } } } };
    const document = await withHost(options, async (host) => {
      const http = createHttpHandler(host);
      return (
        await http({ method: "GET", path: "/openapi.json", url: "/openapi.json", query: {}, headers: {} })
      ).body;
    });
    expect(summary(await lint(document as object))).toEqual([]);
  }, 60_000);

  it("would report what it checks: an operation without an operationId or security, an unused component", async () => {
    const document = (await openApiAppDocument()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, unknown> };
    };
    const addNote = document.paths["/notebook/actions/addNote"]!.post!;
    delete addNote.operationId;
    delete addNote.security;
    document.components.schemas.Unused = { type: "string" };
    const rules = (await lint(document)).map((p) => `${p.severity} ${p.ruleId}`).sort();
    expect(rules).toEqual([
      "error no-unused-components",
      "error operation-operationId",
      "error security-defined",
    ]);
  }, 60_000);
});
