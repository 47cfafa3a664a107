import { defineConfig } from "vitest/config";

// .ci/run sets FLOWRT_VITEST_JSON so that it can count results from vitest's JSON reporter
// while running the README's test command unchanged.
const jsonOut = process.env.FLOWRT_VITEST_JSON;

export default defineConfig({
  test: {
    projects: [
      "packages/*",
      "apps/*",
      // The published packages as packed: metadata, dependencies, publint, Are the Types Wrong?
      { test: { name: "package-checks", include: ["scripts/package-checks/**/*.test.ts"] } },
    ],
    reporters: jsonOut ? ["default", ["json", { outputFile: jsonOut }]] : ["default"],
  },
});
