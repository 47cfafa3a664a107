import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@flowrt/source"] },
  ssr: { resolve: { conditions: ["@flowrt/source"] } },
  test: { name: "inspector" },
});
