import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** A fresh folder under the OS temp dir; tests remove it with {@link removeTempDir}. */
export function makeTempDir(label = "flowrt-fs-"): Promise<string> {
  return mkdtemp(path.join(tmpdir(), label));
}

export function removeTempDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}
