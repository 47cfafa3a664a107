import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    projects: ["packages/*", "apps/*"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
