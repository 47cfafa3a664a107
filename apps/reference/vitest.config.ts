import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@flowrt/source"] },
  ssr: { resolve: { conditions: ["@flowrt/source"] } },
  // The tests run the assistant on the offline model even where a provider key is set.
  test: {
    name: "reference",
    env: { OPENAI_API_KEY: "" },
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
