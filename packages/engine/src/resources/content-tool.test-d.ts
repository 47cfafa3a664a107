import type { Tool, ToolSet } from "ai";
import { describe, expectTypeOf, it } from "vitest";
import { createContentTools, readResourceContentTool } from "./content-tools.js";
import type { ResourceScope } from "./resource-scope.js";

describe("content tools typed without the AI SDK", () => {
  it("fit the AI SDK's tool types, so they go in its own calls as they are", () => {
    const scope = {} as ResourceScope;
    expectTypeOf(createContentTools(scope)).toExtend<ToolSet>();
    expectTypeOf(readResourceContentTool()).toExtend<Tool>();
  });
});
