/**
 * An update's effects name its own request: an active entry or an event of another request is refused with
 * `invalid-request`, and nothing is written (the record, its log and the active registry stay as they were).
 */
import { hasErrorCode, type RequestRecord } from "@flowrt/core";
import { afterAll, describe, expect, it } from "vitest";
import { backends, closeSharedPglite, createTestStoresOn } from "./testing/databases.js";

afterAll(closeSharedPglite);

const record: RequestRecord = {
  id: "r1",
  sessionId: "s1",
  flowId: "f",
  flowKind: "f",
  action: "act",
  userId: "ada",
  status: "queued",
  input: null,
  metadata: {},
  durable: false,
  version: 1,
  createdAt: new Date().toISOString(),
};

describe.each(backends)("an update's effects naming another request (%s)", (backend) => {
  it("are refused with invalid-request and write nothing", async () => {
    const t = await createTestStoresOn(backend);
    try {
      const { requests } = t.stores;
      expect(await requests.create(record)).toBe(true);
      const heard: string[] = [];
      const unsubscribe = requests.subscribe("r1", (event) => heard.push(event.type));
      const at = new Date().toISOString();
      const attempts = [
        { events: [{ requestId: "r2", type: "request.started", at, data: {} }] },
        {
          active: {
            requestId: "r2",
            sessionId: "s1",
            flowId: "f",
            userId: "ada",
            action: "act",
            startedAt: at,
          },
        },
      ];
      for (const effects of attempts) {
        const refusal = await requests
          .update("r1", 1, { status: "running" }, effects)
          .catch((error: unknown) => error);
        expect(hasErrorCode(refusal, "invalid-request")).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      unsubscribe();
      expect(await requests.get("r1")).toMatchObject({ status: "queued", version: 1 });
      expect(await requests.readEvents("r1")).toEqual([]);
      expect(await requests.listActive({})).toEqual([]);
      expect(heard).toEqual([]);
    } finally {
      await t.destroy();
    }
  });
});
