import type { FlowStores, JsonObject, ResourceStateRecord, ResourceStateTextRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { sessionAddress } from "../fixtures.js";

/** A text record as the parsed record it must equal. */
const parsed = (record: ResourceStateTextRecord): ResourceStateRecord => {
  const { stateText, ...rest } = record;
  // The text is exactly what JSON.stringify makes of the state: no whitespace, the state's key order.
  const state = JSON.parse(stateText);
  expect(stateText).toBe(JSON.stringify(state));
  return { ...rest, state };
};

export const resourceStateTextCases = [
  defineCase(
    "resources/state-text",
    "getStateText and listText (optional, both or neither) agree with getState and list",
    async (stores: FlowStores) => {
      const resources = stores.resources;
      const hasGet = typeof resources.getStateText === "function";
      const hasList = typeof resources.listText === "function";
      expect(hasGet, "a store implements getStateText and listText together").toBe(hasList);
      if (!hasGet || !hasList) return;

      const address = sessionAddress();
      const states: Record<string, JsonObject> = {
        "notes/b": { title: "b", n: 2, nested: { list: [1, "two", null, true] } },
        "notes/a": { title: 'a \u{1F600} "quoted" \\ \n', n: -0.5 },
        "notes/a/deep": { title: "deep" },
        "notes/c": { "10": "numeric keys first", z: 1, a: 2 },
        "other/x": { x: 1 },
      };
      for (const [key, state] of Object.entries(states))
        expect(await resources.putState(address, key, state, { type: "absent" })).toMatchObject({ ok: true });
      await resources.putState(address, "notes/b", { title: "b2", n: 3 }, { type: "version", version: 1 });
      await resources.putState(address, "notes/gone", { title: "gone" }, { type: "absent" });
      await resources.deleteState(address, "notes/gone", { type: "any" });

      for (const key of [...Object.keys(states), "notes/gone", "notes/none"]) {
        const text = await resources.getStateText!(address, key);
        const record = await resources.getState(address, key);
        expect(text === null ? null : parsed(text)).toEqual(record);
      }
      for (const options of [
        {},
        { prefix: "notes/" },
        { prefix: "notes/", leaf: true },
        { prefix: "notes/", offset: 1, limit: 2 },
        { prefix: "notes/", leaf: true, offset: 2, limit: 5 },
        { prefix: "missing/" },
      ]) {
        const text = await resources.listText!(address, options);
        const page = await resources.list(address, options);
        expect({ items: text.items.map(parsed), total: text.total }).toEqual(page);
      }
      expect(await resources.listText!(sessionAddress(), { prefix: "notes/" })).toEqual({
        items: [],
        total: 0,
      });
    },
  ),
] as const;
