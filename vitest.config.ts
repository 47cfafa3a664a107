import { defineConfig } from "vitest/config";

// .ci/run sets FLOWRT_VITEST_JSON so that it can count results from vitest's JSON reporter
// while running the README's test command unchanged.
const jsonOut = process.env.FLOWRT_VITEST_JSON;

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*"],
    reporters: jsonOut ? ["default", ["json", { outputFile: jsonOut }]] : ["default"],
  },
});
