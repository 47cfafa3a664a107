import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public surface", () => {
  it("exports the provider-named aliases as the very same functions", () => {
    expect(api.stripeWebhookVerifier).toBe(api.alphaWebhookVerifier);
    expect(api.githubWebhookVerifier).toBe(api.betaWebhookVerifier);
    expect(api.slackWebhookVerifier).toBe(api.gammaWebhookVerifier);
  });

  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_TOLERANCE_SECONDS",
      "alphaWebhookVerifier",
      "betaWebhookVerifier",
      "createWebhookVerifier",
      "gammaWebhookVerifier",
      "githubWebhookVerifier",
      "slackWebhookVerifier",
      "stripeWebhookVerifier",
    ]);
  });
});
