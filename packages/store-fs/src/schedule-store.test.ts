import path from "node:path";
import type { FlowStores } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { listFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

/** Schedule ticks across a restart: what one instance leaves on disk is what the next one reads. */
describe("schedule ticks over a reopened folder", () => {
  let parent: string;
  let dir: string;
  const open: FlowStores[] = [];
  const openStores = () => {
    const stores = createFsStores({ dir, retention: false });
    open.push(stores);
    return stores;
  };
  beforeEach(async () => {
    parent = await makeTempDir();
    dir = path.join(parent, "store");
  });
  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
    await removeTempDir(parent);
  });

  it("claims, fires and the newest tick outlive the instance; a fired tick is not claimed again after a restart", async () => {
    const first = openStores();
    const base = { flowId: "clock", schedule: "hourly" };
    const now = 1_767_225_600_000;
    await first.schedules.claimTick({ ...base, at: now }, { hostId: "a", until: now + 1_000 }, now);
    await first.schedules.fireTick({ ...base, at: now }, 1, "request-1");
    await first.schedules.claimTick(
      { ...base, at: now + 3_600_000 },
      { hostId: "a", until: now + 1_000 },
      now,
    );
    await first.close();

    const second = openStores();
    expect(await second.schedules.latestTick("clock", "hourly")).toEqual({
      ...base,
      at: now + 3_600_000,
      claim: { hostId: "a", until: now + 1_000 },
      epoch: 1,
    });
    // The unfired newest claim lapsed with the old process: taken over after the restart.
    const taken = await second.schedules.claimTick(
      { ...base, at: now + 3_600_000 },
      { hostId: "b", until: now + 3_700_000 },
      now + 3_600_000,
    );
    expect(taken).toMatchObject({ ok: true, record: { epoch: 2, claim: { hostId: "b" } } });
    // The fired older tick is gone from disk (superseded): it is refused, never claimed again.
    expect(
      await second.schedules.claimTick(
        { ...base, at: now },
        { hostId: "b", until: now + 10_000_000 },
        now + 9_000_000,
      ),
    ).toMatchObject({ ok: false, current: { at: now + 3_600_000 } });
    // One file per schedule, inside the store's folder.
    const files = (await listFiles(dir)).filter((file) =>
      file.startsWith(path.join(dir, "schedules") + path.sep),
    );
    expect(files).toHaveLength(1);
  });
});
