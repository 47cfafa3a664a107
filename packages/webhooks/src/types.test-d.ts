import type { IncomingHttpHeaders } from "node:http";
import { describe, expectTypeOf, it } from "vitest";
import {
  alphaWebhookVerifier,
  betaWebhookVerifier,
  createWebhookVerifier,
  gammaWebhookVerifier,
  githubWebhookVerifier,
  slackWebhookVerifier,
  stripeWebhookVerifier,
  type WebhookVerify,
} from "./index.js";

describe("verifier types", () => {
  it("returns boolean for a string, a list or a synchronous getter", () => {
    expectTypeOf(alphaWebhookVerifier("s")).returns.toEqualTypeOf<boolean>();
    expectTypeOf(betaWebhookVerifier(["a", "b"])).returns.toEqualTypeOf<boolean>();
    expectTypeOf(gammaWebhookVerifier(() => "s")).returns.toEqualTypeOf<boolean>();
  });

  it("returns Promise<boolean> for an async getter", () => {
    expectTypeOf(alphaWebhookVerifier(async () => "s")).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(
      createWebhookVerifier({ format: "raw", header: "x", secret: () => Promise.resolve(["a"]) }),
    ).returns.toEqualTypeOf<Promise<boolean>>();
  });

  it("fits the host's verify(rawBody, headers) => boolean | Promise<boolean> slot", () => {
    type ProviderVerify = (rawBody: Buffer, headers: IncomingHttpHeaders) => boolean | Promise<boolean>;
    expectTypeOf(alphaWebhookVerifier("s")).toExtend<ProviderVerify>();
    expectTypeOf(gammaWebhookVerifier(async () => "s")).toExtend<ProviderVerify>();
    expectTypeOf(betaWebhookVerifier("s")).toExtend<(body: string, headers: Headers) => unknown>();
    expectTypeOf(alphaWebhookVerifier("s")).toExtend<WebhookVerify>();
  });

  it("exports the provider-named aliases as the same functions", () => {
    expectTypeOf(stripeWebhookVerifier).toEqualTypeOf(alphaWebhookVerifier);
    expectTypeOf(githubWebhookVerifier).toEqualTypeOf(betaWebhookVerifier);
    expectTypeOf(slackWebhookVerifier).toEqualTypeOf(gammaWebhookVerifier);
  });

  it("requires parseSignature for the custom format", () => {
    // @ts-expect-error parseSignature is required when format is "custom"
    createWebhookVerifier({ format: "custom", header: "x", secret: "s" });
    // @ts-expect-error prefix belongs to the raw format
    createWebhookVerifier({ format: "alpha", header: "x", secret: "s", prefix: "v1=" });
  });
});
