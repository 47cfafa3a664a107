import { defineFlow, defineResource, defineResourceCollection, generator } from "@flowrt/core";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { readResourceContentTool, writeResourceContentTool } from "../resources/content-tools.js";
import { settle, storeFactories, useHost } from "../testing/fixtures.js";
import { type StreamResult, textStep, toolStep } from "./blocks/testing/mock-stream.js";

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

describe("the content tools as the specification names them: readResourceContentTool(), writeResourceContentTool()", () => {
  let model: MockLanguageModelV4;
  const env = useHost(storeFactories[0]!, () => {
    model = scriptedModel([
      toolStep("call-1", "save", { uri: "session/drafts/plan.md", content: "Step one" }),
      toolStep("call-2", "open", { uri: "session/drafts/plan.md" }),
      toolStep("call-3", "open", { uri: "session/secret" }),
      textStep(["Done."]),
    ]);
    const planner = generator({
      name: "planner",
      model,
      prompt: "Plan.",
      // Made without a scope: each run binds them to its own resources.
      tools: { save: writeResourceContentTool(), open: readResourceContentTool() },
      resources: { drafts, secret },
    });
    return {
      flows: [
        defineFlow({
          kind: "planner",
          authentication: { requireUser: false, defaultUserId: "dev" },
          actions: { plan: { block: planner } },
        }),
      ],
    };
  });

  it("bind to the request that runs the generator, under the same llmReadable / llmWritable gates", async () => {
    const { request } = await env.host.invoke("planner", "plan", { source: "test" }, {});
    const { record, events } = await settle(env.host, request.id);
    expect(record.status).toBe("completed");
    const results = events.filter((e) => e.type === "tool.result").map((e) => e.data.output);
    expect(results[0]).toEqual({ uri: "session/drafts/plan.md", written: true });
    expect(results[1]).toEqual({ uri: "session/drafts/plan.md", content: "Step one" });
    expect(JSON.stringify(results[2])).not.toContain("do not read");
    expect(results[2]).toMatchObject({ error: expect.stringContaining("llmReadable") });
  });

  it("outside a generator, a tool made without a scope says what it needs instead of failing obscurely", async () => {
    const loose = readResourceContentTool();
    const result = await loose.execute?.({ uri: "session/x" }, { toolCallId: "t", messages: [] } as never);
    expect(result).toEqual({
      error:
        "readResourceContentTool() without a scope is bound to a request when a generator block runs it; outside one, pass the scope.",
    });
  });
});
