import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FlowStores } from "@flowrt/core";
import { describeStoreConformance } from "@flowrt/store-conformance";
import { createFsStores } from "./create-fs-stores.js";
import { removeTempDir } from "./testing/temp-dir.js";

const dirs = new WeakMap<FlowStores, string>();

describeStoreConformance({
  name: "fs",
  create: () => {
    const dir = mkdtempSync(path.join(tmpdir(), "flowrt-fs-conformance-"));
    const stores = createFsStores({ dir, retention: false });
    dirs.set(stores, dir);
    return stores;
  },
  destroy: async (stores) => {
    await stores.close();
    const dir = dirs.get(stores);
    if (dir) await removeTempDir(dir);
  },
});
