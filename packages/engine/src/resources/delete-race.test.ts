import { defineResourceCollection } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const items = defineResourceCollection({
  pattern: "items/*",
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
});

describe.each(STORE_FACTORIES)("a write racing a delete on the $name store", (factory) => {
  it("a state write to an instance another request deleted is refused and does not bring it back", async () => {
    const { stores, destroy } = await factory.create();
    try {
      const writer = makeContext(stores);
      const deleter = makeContext(stores, { requestId: "r2" });
      const writerScope = createResourceScope(writer.ctx, { items });
      const deleterScope = createResourceScope(deleter.ctx, { items });
      const held = await writerScope.handles.items.create("a", { n: 1 });
      await deleterScope.handles.items.delete("a");
      writer.events.length = 0;

      const error = await rejection(held.incState({ n: 1 }));
      expect(error.code).toBe("instance-not-found");
      expect(await writerScope.handles.items.getOptional("a")).toBeNull();
      expect(
        await stores.resources.count({ scope: "session", scopeId: "s1", bucket: "shared" }, "items/"),
      ).toBe(0);
      expect(writer.events).toEqual([]);
    } finally {
      await destroy();
    }
  });
});
