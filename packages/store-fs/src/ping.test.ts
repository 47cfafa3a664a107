import { rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createFsStores } from "./index.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

let parent: string;
beforeEach(async () => {
  parent = await makeTempDir();
});
afterEach(() => removeTempDir(parent));

it("ping answers while the folder is there and fails once it is gone or the store is closed", async () => {
  const dir = path.join(parent, "store");
  const stores = createFsStores({ dir, fsync: false });
  await expect(stores.ping!()).resolves.toBeUndefined();
  await rm(dir, { recursive: true, force: true });
  await expect(stores.ping!()).rejects.toMatchObject({
    code: "store-error",
    message: expect.stringContaining(`${dir} is not usable (ENOENT)`),
  });
  await stores.close();
  await expect(stores.ping!()).rejects.toMatchObject({ code: "store-error" });
});
