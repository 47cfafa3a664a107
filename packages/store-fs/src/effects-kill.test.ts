/**
 * A request write and its other parts (active entry, events, own session) survive SIGKILL as one unit: a writer
 * process running requests through their life with effects is killed at varied points, and after each restart
 * every request holds exactly what its stored version says, never a record without its parts.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { bundleChild } from "./testing/bundle-child.js";
import {
  EFFECT_STEPS,
  effectsRequest,
  effectsSession,
  entryOf,
  expectedAt,
} from "./testing/effects-model.js";
import { listFiles, unreadableFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const WRITER = fileURLToPath(new URL("./testing/effects-writer.ts", import.meta.url));
const WORKERS = 3;
const ROUNDS = 24;
/** Rounds that must find a write between its journal's intent and its done line (the recovery path). */
const MIN_OPEN_INTENTS = 6;

interface Line {
  p: "b" | "a";
  w: number;
  id: string;
  step: string;
  version?: number;
}

/** Runs the writer until it has started its `nth` write of `step`, kills it with SIGKILL, and returns its lines. */
async function runAndKill(bundle: string, dir: string, round: number, step: string, nth: number) {
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
  for await (const text of createInterface({ input: child.stdout })) {
    let line: Line;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    lines.push(line);
    if (line.p === "b" && line.step === step && ++seen === nth) child.kill("SIGKILL");
  }
  const outcome = await exited;
  if (outcome !== "SIGKILL")
    throw new Error(`writer ended with ${String(outcome)} before the kill: ${stderr}`);
  return lines;
}

/** Intents in the journal without a done line, as the killed writer left it. */
async function openIntents(dir: string): Promise<number> {
  const text = await readFile(path.join(dir, "effects.log"), "utf8").catch(() => "");
  const lines = text
    .split("\n")
    .filter((line) => line.endsWith("}"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { i?: string; c?: string }];
      } catch {
        return [];
      }
    });
  const done = new Set(lines.flatMap((line) => (line.c === undefined ? [] : [line.c])));
  return lines.filter((line) => line.i !== undefined && !done.has(line.i)).length;
}

describe("effects kill recovery", () => {
  let work: string;
  let bundle: string;
  beforeAll(async () => {
    work = await makeTempDir("flowrt-fs-effects-kill-");
    bundle = await bundleChild(WRITER, work);
  });
  afterAll(async () => {
    await removeTempDir(work);
  });

  it("SIGKILL during creates with a session and updates with effects: after each restart every request holds what its version says", async () => {
    const dir = path.join(work, "store");
    let roundsWithOpenIntents = 0;
    let checked = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const step = EFFECT_STEPS[round % EFFECT_STEPS.length]!;
      const lines = await runAndKill(bundle, dir, round, step, 2 + (round % 5));
      if ((await openIntents(dir)) > 0) roundsWithOpenIntents++;

      // The version each request was acknowledged at, and each worker's last request.
      const acknowledged = new Map<string, number>();
      const started = new Set<string>();
      for (const line of lines) {
        if (line.p === "b") started.add(line.id);
        else acknowledged.set(line.id, line.version!);
      }

      const stores = createFsStores({ dir, retention: false });
      try {
        for (const id of started) {
          const [, , w, i] = id.split("-").map(Number);
          const request = effectsRequest(round, w!, i!);
          const record = await stores.requests.get(id);
          const session = await stores.sessions.get(request.sessionId);
          const ack = acknowledged.get(id) ?? 0;
          const where = `round ${round}, ${id} (acknowledged at version ${ack})`;
          if (record === null) {
            // A create that was not acknowledged may be absent, and its session with it.
            expect(ack, where).toBe(0);
            expect(session, where).toBeNull();
            continue;
          }
          expect(session, where).toEqual(effectsSession(request));
          // At most the write in flight landed beyond what was acknowledged.
          expect(record.version, where).toBeGreaterThanOrEqual(Math.max(ack, 1));
          expect(record.version, where).toBeLessThanOrEqual(Math.max(ack, 1) + 1);
          const expected = expectedAt(record.version);
          const events = await stores.requests.readEvents(id);
          expect(
            events.map((event) => event.seq),
            where,
          ).toEqual(Array.from({ length: expected.events }, (_, n) => n + 1));
          expect(events.at(-1)?.type, where).toBe(expected.lastType);
          const active = (await stores.requests.listActive({ userId: request.userId })).filter(
            (entry) => entry.requestId === id,
          );
          expect(active, where).toEqual(expected.active ? [entryOf(request)] : []);
          expect(record.status, where).toBe(
            record.version === 1
              ? "queued"
              : record.version === EFFECT_STEPS.length
                ? "completed"
                : "running",
          );
          checked++;
        }
      } finally {
        await stores.close();
      }
      // Opening settled the journal and swept the temp files; everything left parses.
      const files = (await listFiles(dir)).map((file) => path.relative(dir, file));
      expect(files.filter((file) => file.startsWith(`tmp${path.sep}`))).toEqual([]);
      expect(await unreadableFiles(dir)).toEqual([]);
    }
    expect(roundsWithOpenIntents, JSON.stringify({ roundsWithOpenIntents, checked })).toBeGreaterThanOrEqual(
      MIN_OPEN_INTENTS,
    );
  }, 300_000);
});
