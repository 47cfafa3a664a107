import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: { name: "engine", typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] } },
});
