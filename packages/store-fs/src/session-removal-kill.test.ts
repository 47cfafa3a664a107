import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { bundleChild } from "./testing/bundle-child.js";
import { listFiles, unreadableFiles } from "./testing/file-tree.js";
import { ALL_PARTS, readSession, removalSessionId } from "./testing/removal-model.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const WRITER = fileURLToPath(new URL("./testing/removal-writer.ts", import.meta.url));
const SESSIONS = 3;
/** Kills that found the removal begun and not finished, wanted in all and with some parts already gone. */
const KILLS_INSIDE = 20;
const KILLS_MIDWAY = 8;
const MAX_ROUNDS = 80;

interface Line {
  p: "f" | "b" | "a" | "done";
  n?: number;
}

/**
 * Runs the writer until it starts removing session `target`, then kills it with SIGKILL after `delayMs` (varied
 * from round to round, so kills land before, inside and after the removal's steps).
 */
async function runAndKill(bundle: string, dir: string, round: number, target: number, delayMs: number) {
  const child = spawn(process.execPath, [bundle, dir, String(round), String(SESSIONS)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? code)),
  );
  const lines: Line[] = [];
  for await (const text of createInterface({ input: child.stdout })) {
    let line: Line;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    lines.push(line);
    if (line.p === "b" && line.n === target) {
      if (delayMs === 0) child.kill("SIGKILL");
      else setTimeout(() => child.kill("SIGKILL"), delayMs);
    }
  }
  const outcome = await exited;
  if (outcome !== "SIGKILL")
    throw new Error(`writer ended with ${String(outcome)} before the kill: ${stderr}`);
  return lines;
}

describe("session removal killed mid-way", () => {
  let work: string;
  let bundle: string;
  beforeAll(async () => {
    work = await makeTempDir("flowrt-fs-removal-kill-");
    bundle = await bundleChild(WRITER, work);
  });
  afterAll(async () => {
    await removeTempDir(work);
  });

  it("SIGKILL inside sessions.remove: the session is gone with everything under it, whole and unmarked, or marked deleting; a second remove finishes", async () => {
    const dir = path.join(work, "store");
    let inside = 0;
    let midway = 0;
    let rounds = 0;
    for (; rounds < MAX_ROUNDS && (inside < KILLS_INSIDE || midway < KILLS_MIDWAY); rounds++) {
      const target = rounds % (SESSIONS - 1);
      const lines = await runAndKill(bundle, dir, rounds, target, (rounds * 7) % 40);
      const filled = new Set(lines.filter((l) => l.p === "f").map((l) => l.n));
      const begun = new Set(lines.filter((l) => l.p === "b").map((l) => l.n));
      const acked = new Set(lines.filter((l) => l.p === "a").map((l) => l.n));
      expect(filled.size, `round ${rounds}`).toBe(SESSIONS);

      const stores = createFsStores({ dir, retention: false });
      try {
        for (let n = 0; n < SESSIONS; n++) {
          const id = removalSessionId(rounds, n);
          const found = await readSession(stores, id);
          const where = `round ${rounds}, session ${n}: ${JSON.stringify(found)}`;
          if (acked.has(n)) {
            expect(found, where).toEqual({ record: null, parts: [] });
          } else if (begun.has(n)) {
            if (found.record === null) {
              // Finished before the kill, its acknowledgement lost: nothing of it is left.
              expect(found.parts, where).toEqual([]);
              expect(await stores.sessions.remove(id)).toBeNull();
              continue;
            }
            if (found.record.deleting !== true) {
              // Killed before the removal's first write: a live session is whole.
              expect(found.parts, where).toEqual(ALL_PARTS);
            } else {
              // Cut short: the record is there, marked, with what is left under it.
              inside++;
              if (found.parts.length < ALL_PARTS.length) midway++;
            }
            expect(await stores.sessions.remove(id), where).not.toBeNull();
            expect(await readSession(stores, id), where).toEqual({ record: null, parts: [] });
            expect(await stores.sessions.remove(id)).toBeNull();
          } else {
            // Not reached: whole, and not marked.
            expect(found.record, where).toMatchObject({ id, title: "kept until removed" });
            expect(found.record?.deleting, where).toBeUndefined();
            expect(found.parts, where).toEqual(ALL_PARTS);
            // Removed here, so the folder stays small from round to round.
            expect(await stores.sessions.remove(id)).not.toBeNull();
          }
        }
      } finally {
        await stores.close();
      }
      // Opening swept the killed writer's temp files and half-removed folders; everything left parses.
      const files = (await listFiles(dir)).map((file) => path.relative(dir, file));
      expect(files.filter((file) => file.startsWith(`tmp${path.sep}`))).toEqual([]);
      expect(await unreadableFiles(dir)).toEqual([]);
    }
    expect(inside, `kills inside a removal after ${rounds} rounds`).toBeGreaterThanOrEqual(KILLS_INSIDE);
    expect(midway, `kills with parts already gone after ${rounds} rounds`).toBeGreaterThanOrEqual(
      KILLS_MIDWAY,
    );
  }, 240_000);
});
