import { defineFlow, defineResource, defineResourceCollection, generator } from "@flowrt/core";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { type StreamResult, textStep, toolStep } from "../blocks/testing/mock-stream.js";
import { settle, storeFactories, useHost } from "./testing/fixtures.js";

const drafts = defineResourceCollection({
  pattern: "drafts/*",
  scope: "session",
  llmReadable: true,
  llmWritable: true,
});
const secret = defineResource({ scope: "session", content: "do not read", llmReadable: false });

/** A model that plays a scripted conversation: one stream per call, in order. */
function scriptedModel(steps: StreamResult[]) {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const step = steps[call++];
      if (!step) throw new Error("the model was called more often than scripted");
      return step;
    },
  });
}

describe.each(storeFactories)("a generator action on the $name store", (factory) => {
  let model: MockLanguageModelV4;
  const env = useHost(factory, () => {
    model = scriptedModel([
      toolStep("call-1", "writeResourceContent", {
        uri: "session/drafts/intro.md",
        content: "Hello from the model",
      }),
      toolStep("call-2", "readResourceContent", { uri: "session/secret" }),
      textStep(["Wrote ", "the ", "draft."]),
    ]);
    const writer = generator({
      name: "writer",
      model,
      prompt: "Write an intro draft.",
      contentTools: true,
      resources: { drafts, secret },
    });
    const flow = defineFlow({
      kind: "writer",
      authentication: { requireUser: false, defaultUserId: "dev" },
      actions: { write: { block: writer } },
    });
    return { flows: [flow] };
  });

  it("streams text deltas and tool calls, and writes a resource through the content tools", async () => {
    const { request, session } = await env.host.invoke("writer", "write", { source: "test" }, {});
    const { record, events } = await settle(env.host, request.id);
    expect(record.status).toBe("completed");
    expect(record.output).toBe("Wrote the draft.");

    const calls = events.filter((e) => e.type === "tool.call").map((e) => e.data.toolName);
    expect(calls).toEqual(["writeResourceContent", "readResourceContent"]);
    const results = events.filter((e) => e.type === "tool.result");
    expect(results[0]?.data.output).toMatchObject({ uri: "session/drafts/intro.md", written: true });
    // llmReadable: false is out of the tools' reach: the model gets an error result, not the content.
    expect(JSON.stringify(results[1]?.data)).not.toContain("do not read");
    const deltas = events.filter((e) => e.type === "text.delta").map((e) => e.data.delta);
    expect(deltas.join("")).toBe("Wrote the draft.");
    // The collection write announced itself on the stream, inside the turn.
    const change = events.find((e) => e.type === "resource_change");
    expect(change?.data).toMatchObject({ ref: "drafts", kind: "collection", change: "created" });

    const address = { scope: "session" as const, scopeId: session.id, bucket: "shared" };
    expect(await env.host.stores.resources.getContent(address, "drafts/intro.md")).toBe(
      "Hello from the model",
    );
    expect(model.doStreamCalls).toHaveLength(3);
  });
});
