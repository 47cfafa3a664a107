import type { RequestEvent } from "@flowrt/core";
import { describe, expect, test } from "vitest";
import { failedBlock } from "./failed-block.js";

let seq = 0;
const event = (type: string, data: Record<string, string> = {}): RequestEvent => ({
  seq: ++seq,
  type,
  requestId: "r",
  at: "2026-01-01T00:00:00.000Z",
  data,
});

describe("failedBlock", () => {
  test("names the innermost block started and never completed, with the blocks around it", () => {
    expect(
      failedBlock([
        event("request.started"),
        event("block.started", { block: "outer", kind: "sequencer" }),
        event("block.started", { block: "a", kind: "handler" }),
        event("block.completed", { block: "a", kind: "handler" }),
        event("block.started", { block: "b", kind: "router" }),
        event("block.started", { block: "c", kind: "handler" }),
        event("request.failed"),
      ]),
    ).toEqual({ block: "c", kind: "handler", path: ["outer", "b"] });
  });

  test("is null when every block completed or none ran (a failure outside any block)", () => {
    expect(failedBlock([event("request.started"), event("request.failed")])).toBeNull();
    expect(
      failedBlock([
        event("block.started", { block: "a", kind: "handler" }),
        event("block.completed", { block: "a", kind: "handler" }),
        event("request.failed"),
      ]),
    ).toBeNull();
  });

  test("ignores application events and events without a block name", () => {
    expect(
      failedBlock([
        event("block.started", { block: "a", kind: "handler" }),
        event("progress", { block: "not-a-block-event" }),
        event("block.completed"),
      ]),
    ).toEqual({ block: "a", kind: "handler", path: [] });
  });
});
