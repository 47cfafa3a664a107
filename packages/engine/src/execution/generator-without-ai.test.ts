import { defineFlow, generator } from "@flowrt/core";
import { describe, expect, it, vi } from "vitest";
import { settle, withHost } from "../testing/fixtures.js";
import { recordingLogger } from "../testing/recording-logger.js";

// `ai` made unimportable for this file, as in an app that installed the engine without it.
vi.mock("ai", () => {
  throw Object.assign(new Error("Cannot find package 'ai'"), { code: "ERR_MODULE_NOT_FOUND" });
});

/** A model that fails the test if anything calls it: without the SDK, nothing may. */
const model = {
  specificationVersion: "v4",
  provider: "test",
  modelId: "never-called",
  supportedUrls: {},
  doGenerate: () => expect.unreachable("the model was called"),
  doStream: () => expect.unreachable("the model was called"),
};

describe("a host whose app did not install `ai`", () => {
  it("starts, runs other actions, and fails a generator run with internal-error, the install hint in the log only", async () => {
    const { logger, lines } = recordingLogger();
    const writer = generator({ name: "writer", model, prompt: "Write." });
    const flow = defineFlow({
      kind: "writer",
      authentication: { requireUser: false, defaultUserId: "dev" },
      actions: { write: { block: writer } },
    });
    await withHost({ flows: [flow], logger }, async (host) => {
      const { request } = await host.invoke("writer", "write", { source: "test" }, {});
      const { record, events } = await settle(host, request.id);
      expect(record.status).toBe("failed");
      expect(record.error).toEqual({
        code: "internal-error",
        message: "An unexpected error occurred.",
        retryable: false,
        errorId: expect.any(String),
      });
      // The block started and failed; no model output reached the stream.
      expect(events.map((e) => e.type)).toEqual(["request.started", "block.started", "request.failed"]);
      const logged = lines.find((line) => line.fields.errorId === record.error?.errorId);
      expect(logged?.level).toBe("error");
      expect(String((logged?.fields.err as Error | undefined)?.message)).toContain("npm install ai");
    });
  });
});
