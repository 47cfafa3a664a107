import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@flowrt/source"] },
  ssr: { resolve: { conditions: ["@flowrt/source"] } },
  test: {
    name: "store-postgres",
    // Starting PGlite (WebAssembly) takes seconds on a busy machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
