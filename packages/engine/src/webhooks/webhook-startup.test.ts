import { defineFlow, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import { describe, expect, it } from "vitest";
import { createFlowHost } from "../host.js";
import type { FlowHostOptions } from "../host-options.js";
import { silentLogger } from "../logger.js";
import { SECRET } from "./testing/webhook-harness.js";

const noop = handler({ name: "noop", execute: async () => null });

const github = defineFlow({
  kind: "repo",
  authentication: { requireUser: false, defaultUserId: "bot" },
  webhooks: { github: { on: { push: { block: noop } } } },
});

async function startFails(options: Omit<FlowHostOptions, "stores" | "logger">) {
  const stores = createMemoryStores();
  let setupCalls = 0;
  const host = createFlowHost({
    ...options,
    logger: silentLogger,
    recoveryIntervalMs: 0,
    stores: {
      ...stores,
      async setup() {
        setupCalls++;
      },
    },
  });
  const error = await host.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(host.started).toBe(false);
  expect(setupCalls).toBe(0);
  await stores.close();
  return error as Error & { code?: string };
}

describe("startup checks of webhook providers", () => {
  it("a flow declaring a provider the host did not configure fails to start, naming flow and provider", async () => {
    const error = await startFails({
      flows: [github],
      webhookProviders: { stripe: { verify: alphaWebhookVerifier(SECRET), eventType: () => null } },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("webhook-provider-not-configured");
    expect(error.message).toContain('"repo"');
    expect(error.message).toContain('"github"');
  });

  it("with no webhookProviders at all, the same error", async () => {
    const error = await startFails({ flows: [github] });
    expect(error.code).toBe("webhook-provider-not-configured");
  });

  it("a provider configured without an eventType extractor cannot serve a flow that routes with `on`", async () => {
    const error = await startFails({
      flows: [github],
      webhookProviders: { github: { verify: () => true } },
    });
    expect(error.name).toBe("DefinitionError");
    expect(error.message).toContain("eventType");
    expect(error.message).toContain('"github"');
  });

  it("a configured provider without a verify function (or with a hook that is not a function) fails to start", async () => {
    const noVerify = await startFails({
      flows: [github],
      webhookProviders: { github: { eventType: () => "push" } as never },
    });
    expect(noVerify.name).toBe("DefinitionError");
    expect(noVerify.message).toContain('provider "github" has no verify function');

    // Also a provider no flow uses: its deliveries could only ever be refused.
    const unused = await startFails({
      flows: [github],
      webhookProviders: {
        github: { verify: () => true, eventType: () => "push" },
        stripe: { verify: "whsec_x" } as never,
      },
    });
    expect(unused.message).toContain('provider "stripe" has no verify function');

    const badHook = await startFails({
      flows: [github],
      webhookProviders: { github: { verify: () => true, eventType: "push" } as never },
    });
    expect(badHook.message).toContain('"eventType" must be a function');
  });

  it("a provider named `__proto__` is a provider like any other: startup requires it configured", async () => {
    const proto = defineFlow({
      kind: "proto",
      authentication: { requireUser: false, defaultUserId: "bot" },
      webhooks: { ["__proto__"]: { on: { ["__proto__"]: { block: noop } } } },
    });
    expect(Object.keys(proto.webhooks)).toEqual(["__proto__"]);
    expect(Object.keys(Object.values(proto.webhooks)[0]!.on)).toEqual(["__proto__"]);
    const error = await startFails({ flows: [proto] });
    expect(error.code).toBe("webhook-provider-not-configured");
    expect(error.message).toContain('"__proto__"');
  });

  it("a provider without eventType is fine for a flow with an empty `on` map, and configured providers start", async () => {
    const quiet = defineFlow({
      kind: "quiet",
      authentication: { requireUser: false, defaultUserId: "bot" },
      webhooks: { github: { on: {} } },
    });
    const stores = createMemoryStores();
    const host = createFlowHost({
      flows: [quiet, github.instance({ id: "repo-2" })],
      stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
      webhookProviders: { github: { verify: () => true, eventType: () => "push" } },
    });
    await host.start();
    expect(host.started).toBe(true);
    await host.close();
    await stores.close();
  });
});
