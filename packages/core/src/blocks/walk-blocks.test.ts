import { describe, expect, it } from "vitest";
import { defineResource, defineResourceCollection } from "../resources/index.js";
import type { AnyBlock } from "./block-definition.js";
import { generator } from "./generator.js";
import { handler } from "./handler.js";
import { router } from "./router.js";
import { sequencer } from "./sequencer.js";
import { parallel, rescue, stepIf } from "./sequencer-steps.js";
import { collectBlockResources, walkBlocks } from "./walk-blocks.js";

const notes = defineResourceCollection({ pattern: "notes/*", scope: "session" });
const profile = defineResource({ scope: "user" });
const model = { specificationVersion: "v3", modelId: "m" };

const a = handler({ name: "a", resources: { notes }, execute: () => 1 });
const b = handler({ name: "b", execute: () => 1 });
const c = generator({ name: "c", model, prompt: "p", resources: { profile } });
const d = handler({ name: "d", execute: () => 1 });
const fallback = handler({ name: "fallback", resources: { notes }, execute: () => 1 });
const route = router({ name: "route", routes: { one: c, two: d }, select: () => "one" });
const tree = sequencer({
  name: "root",
  steps: [a, stepIf(() => true, b), parallel([route, a]), rescue(d, fallback), rescue(b, () => 0)],
});

describe("walkBlocks", () => {
  it("visits parents before children, in declaration order, each block once", () => {
    const seen: string[] = [];
    walkBlocks(tree, (block: AnyBlock) => seen.push(block.name));
    expect(seen).toEqual(["root", "a", "b", "route", "c", "d", "fallback"]);
  });

  it("visits a lone block", () => {
    const seen: string[] = [];
    walkBlocks(b, (block) => seen.push(block.name));
    expect(seen).toEqual(["b"]);
  });
});

describe("collectBlockResources", () => {
  it("lists every declaration with its accessor, definition and declaring block", () => {
    expect(collectBlockResources(tree)).toEqual([
      { accessor: "notes", definition: notes, blockName: "a" },
      { accessor: "profile", definition: profile, blockName: "c" },
      { accessor: "notes", definition: notes, blockName: "fallback" },
    ]);
  });
});
