import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { CRASH_ADDRESS, crashOp } from "./testing/crash-schedule.js";
import { listFiles, unreadableFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const WRITER = fileURLToPath(new URL("./testing/crash-writer.ts", import.meta.url));
const WORKERS = 4;
const KILL_AFTER_ACKS = 400;

interface Progress {
  /** Highest step each worker started and had acknowledged (-1: none). */
  begun: number[];
  acked: number[];
  /** Acknowledged event seqs per worker, by step. */
  seqs: Map<string, number>;
}

/** Runs the writer child until it has `acks` acknowledged writes, then kills it with SIGKILL. */
async function runAndKill(dir: string, acks: number): Promise<Progress> {
  const child = spawn(
    process.execPath,
    ["--conditions=@flowrt/source", "--import", "tsx", WRITER, dir, String(WORKERS)],
    {
      cwd: path.dirname(fileURLToPath(import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? code)),
  );
  const progress: Progress = {
    begun: Array(WORKERS).fill(-1),
    acked: Array(WORKERS).fill(-1),
    seqs: new Map(),
  };
  let count = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    // Lines printed after the kill signal was sent may be cut; the kill is what is being tested.
    let message: { phase: string; w: number; i: number; seq?: number };
    try {
      message = JSON.parse(line);
    } catch {
      break;
    }
    if (message.phase === "begin") progress.begun[message.w] = message.i;
    else {
      progress.acked[message.w] = message.i;
      if (message.seq !== undefined) progress.seqs.set(`${message.w}:${message.i}`, message.seq);
      if (++count === acks) child.kill("SIGKILL");
    }
  }
  const outcome = await exited;
  if (outcome !== "SIGKILL")
    throw new Error(`writer ended with ${String(outcome)} before the kill: ${stderr}`);
  return progress;
}

type KeyModel = { live: boolean; value?: object; version: number; content?: string };

/** Replays steps 0..last of worker `w` into a model of its keys. */
function model(w: number, last: number): Map<string, KeyModel> {
  const keys = new Map<string, KeyModel>();
  for (let i = 0; i <= last; i++) {
    const op = crashOp(w, i);
    if (op.kind !== "put" && op.kind !== "delete" && op.kind !== "content") continue;
    const key = keys.get(op.key) ?? { live: false, version: 0 };
    if (op.kind === "put") Object.assign(key, { live: true, value: op.value, version: key.version + 1 });
    else if (op.kind === "delete" && key.live)
      Object.assign(key, { live: false, version: key.version + 1, content: undefined });
    else if (op.kind === "content") key.content = op.body;
    keys.set(op.key, key);
  }
  return keys;
}

describe("crash safety", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  it("after SIGKILL mid-loop, a new store finds every acknowledged write and no unreadable file", async () => {
    const progress = await runAndKill(dir, KILL_AFTER_ACKS);
    expect(progress.acked.reduce((sum, last) => sum + last + 1, 0)).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);

    const stores = createFsStores({ dir, retention: false });
    try {
      const r = stores.resources;
      const liveKeys: string[] = [];
      for (let w = 0; w < WORKERS; w++) {
        const acked = model(w, progress.acked[w]!);
        // A write that had started but was not acknowledged may or may not have landed.
        const withInFlight = model(w, progress.begun[w]!);
        for (const key of new Set([...acked.keys(), ...withInFlight.keys()])) {
          const record = await r.getState(CRASH_ADDRESS, key);
          const actual = record
            ? { live: true, value: record.state, version: record.version }
            : { live: false };
          const candidates = [acked.get(key), withInFlight.get(key)].map((m) =>
            m?.live ? { live: true, value: m.value, version: m.version } : { live: false },
          );
          expect(candidates, `state of ${key}`).toContainEqual(actual);
          if (record) liveKeys.push(key);
          const content = await r.getContent(CRASH_ADDRESS, key);
          expect([acked.get(key)?.content ?? null, withInFlight.get(key)?.content ?? null]).toContain(
            content,
          );
        }

        for (let i = 0; i <= progress.acked[w]!; i++) {
          const op = crashOp(w, i);
          if (op.kind === "session")
            expect(await stores.sessions.get(op.id)).toMatchObject({ metadata: { w, i } });
        }
        const events = await stores.requests.readEvents(`req-${w}`);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, n) => n + 1));
        for (const [at, seq] of progress.seqs) {
          const [ew, ei] = at.split(":").map(Number);
          if (ew === w) expect(events[seq - 1]).toMatchObject({ seq, data: { i: ei } });
        }
      }

      // The key index agrees with the value files.
      const page = await r.list(CRASH_ADDRESS);
      expect(page.items.map((item) => item.key)).toEqual([...liveKeys].sort());
      expect(page.total).toBe(liveKeys.length);
      expect(await r.count(CRASH_ADDRESS)).toBe(liveKeys.length);

      // Writing goes on where the killed writer stopped.
      const next = await stores.requests.appendEvent({ requestId: "req-0", type: "x", at: "", data: {} });
      expect(next.seq).toBe((await stores.requests.readEvents("req-0")).length);
    } finally {
      await stores.close();
    }

    // Temp files of the killed process were swept; everything left parses.
    const leftovers = (await listFiles(dir)).map((file) => path.relative(dir, file));
    expect(leftovers.filter((file) => file.startsWith(`tmp${path.sep}`))).toEqual([]);
    expect(await unreadableFiles(dir)).toEqual([]);
  }, 30_000);
});
