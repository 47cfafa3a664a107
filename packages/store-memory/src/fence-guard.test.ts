import { hasErrorCode } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { createFenceGuard } from "./fence-guard.js";

const epochs = new Map([
  ["claimed", 3],
  ["never-claimed", 0],
]);
const guard = createFenceGuard((requestId) => epochs.get(requestId));

function refusal(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the write to be refused");
}

describe("createFenceGuard", () => {
  it("lets through a write without a fence, and one whose epoch is the stored one or newer", () => {
    expect(() => guard(undefined)).not.toThrow();
    expect(() => guard({ requestId: "claimed", epoch: 3 })).not.toThrow();
    expect(() => guard({ requestId: "claimed", epoch: 4 })).not.toThrow();
    expect(() => guard({ requestId: "never-claimed", epoch: 0 })).not.toThrow();
  });

  it("refuses an older epoch with lease-lost, naming the request and both epochs", () => {
    const error = refusal(() => guard({ requestId: "claimed", epoch: 2 }));
    expect(hasErrorCode(error, "lease-lost")).toBe(true);
    expect((error as Error).message).toMatch(/"claimed" under claim epoch 2 .*\(epoch 3\)/);
  });

  it("refuses a fence of a request that is not stored", () => {
    const error = refusal(() => guard({ requestId: "gone", epoch: 1 }));
    expect(hasErrorCode(error, "lease-lost")).toBe(true);
    expect((error as Error).message).toMatch(/"gone" .* does not exist/);
  });

  it("refuses a malformed fence with a TypeError", () => {
    for (const fence of [
      null,
      { requestId: 1, epoch: 0 },
      { requestId: "claimed", epoch: -1 },
      { requestId: "claimed", epoch: 1.5 },
    ]) {
      expect(() => guard(fence as never)).toThrow(TypeError);
    }
  });
});
