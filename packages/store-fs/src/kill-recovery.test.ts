import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { bundleChild } from "./testing/bundle-child.js";
import { listFiles, unreadableFiles } from "./testing/file-tree.js";
import {
  applyOp,
  EMPTY_KEY,
  type KeyModel,
  KILL_ADDRESS,
  type KillOp,
  killKeys,
} from "./testing/kill-model.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const WRITER = fileURLToPath(new URL("./testing/kill-writer.ts", import.meta.url));
const WORKERS = 3;
/** Kills with a create, a content write or a delete in flight, wanted in all and of each kind. */
const KILLS_INSIDE = 100;
const KILLS_INSIDE_EACH_KIND = 20;
const MAX_ROUNDS = 250;
const TARGETS = ["create", "content", "delete"] as const;

interface Line {
  p: "b" | "a";
  w: number;
  i: number;
  op?: KillOp;
  result?: unknown;
}

/**
 * Runs the writer until it has started the `nth` operation of kind `target`, then kills it with SIGKILL, and returns
 * every line it wrote before it died.
 */
async function runAndKill(bundle: string, dir: string, round: number, target: string, nth: number) {
  const child = spawn(process.execPath, [bundle, dir, String(round), String(WORKERS)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? code)),
  );
  const lines: Line[] = [];
  let seen = 0;
  // Read to the end: lines the child wrote between the kill signal and its death are as real as the others.
  for await (const text of createInterface({ input: child.stdout })) {
    let line: Line;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    lines.push(line);
    if (line.p === "b" && line.op?.kind === target && ++seen === nth) child.kill("SIGKILL");
  }
  const outcome = await exited;
  if (outcome !== "SIGKILL")
    throw new Error(`writer ended with ${String(outcome)} before the kill: ${stderr}`);
  return lines;
}

function sameKey(actual: KeyModel, expected: KeyModel): boolean {
  return (
    actual.live === expected.live &&
    actual.content === expected.content &&
    (!actual.live ||
      (actual.version === expected.version &&
        JSON.stringify(actual.value) === JSON.stringify(expected.value)))
  );
}

describe("kill recovery", () => {
  let work: string;
  let bundle: string;
  beforeAll(async () => {
    work = await makeTempDir("flowrt-fs-kill-");
    bundle = await bundleChild(WRITER, work);
  });
  afterAll(async () => {
    await removeTempDir(work);
  });

  it("SIGKILL inside creates, content writes and deletes: after each restart no item is half-way, no acknowledged write is lost, every file reads", async () => {
    const dir = path.join(work, "store");
    const model = new Map<string, KeyModel>();
    const inside: Record<string, number> = { create: 0, content: 0, delete: 0 };
    let killsInside = 0;
    let rounds = 0;
    const done = () =>
      killsInside >= KILLS_INSIDE && TARGETS.every((kind) => inside[kind]! >= KILLS_INSIDE_EACH_KIND);
    for (; rounds < MAX_ROUNDS && !done(); rounds++) {
      const target = TARGETS[rounds % TARGETS.length]!;
      const lines = await runAndKill(bundle, dir, rounds, target, 1 + (rounds % 7));

      // Replay what the writer reported: acknowledged operations in order, each checked against the model; at most
      // one operation per worker was still in flight when the process died.
      const inFlight = new Map<number, KillOp>();
      for (const line of lines) {
        if (line.p === "b") {
          inFlight.set(line.w, line.op!);
          continue;
        }
        const op = inFlight.get(line.w)!;
        inFlight.delete(line.w);
        const { next, result } = applyOp(model.get(op.key) ?? EMPTY_KEY, op);
        expect(line.result, `round ${rounds}: ${JSON.stringify(op)}`).toEqual(result);
        model.set(op.key, next);
      }
      const kinds = new Set([...inFlight.values()].map((op) => op.kind));
      for (const kind of TARGETS) if (kinds.has(kind)) inside[kind]!++;
      if (TARGETS.some((kind) => kinds.has(kind))) killsInside++;

      const stores = createFsStores({ dir, retention: false });
      try {
        const live: string[] = [];
        for (let w = 0; w < WORKERS; w++) {
          const pending = inFlight.get(w);
          for (const key of killKeys(w)) {
            const before = model.get(key) ?? EMPTY_KEY;
            // The operation in flight either landed whole or not at all.
            const candidates = [before];
            if (pending?.key === key) candidates.push(applyOp(before, pending).next);
            const record = await stores.resources.getState(KILL_ADDRESS, key);
            const actual: KeyModel = {
              live: record !== null,
              value: record?.state ?? null,
              version: record?.version ?? 0,
              content: await stores.resources.getContent(KILL_ADDRESS, key),
            };
            const match = candidates.find((candidate) => sameKey(actual, candidate));
            expect(match, `round ${rounds}, ${key}: ${JSON.stringify({ actual, candidates })}`).toBeDefined();
            model.set(key, match!);
            if (actual.live) live.push(key);
          }
        }
        // The key index agrees with the value files.
        const page = await stores.resources.list(KILL_ADDRESS);
        expect(page.items.map((item) => item.key)).toEqual(live.sort());
        expect(await stores.resources.count(KILL_ADDRESS)).toBe(live.length);
      } finally {
        await stores.close();
      }
      // Opening swept the killed writer's temp files; everything left parses.
      const files = (await listFiles(dir)).map((file) => path.relative(dir, file));
      expect(files.filter((file) => file.startsWith(`tmp${path.sep}`))).toEqual([]);
      expect(await unreadableFiles(dir)).toEqual([]);
    }
    expect(done(), JSON.stringify({ rounds, killsInside, inside })).toBe(true);
  }, 120_000);
});
