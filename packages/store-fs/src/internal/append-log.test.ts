import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDir } from "../testing/temp-dir.js";
import { AppendLog } from "./append-log.js";
import { FsContext } from "./fs-context.js";

describe("AppendLog", () => {
  let dir: string;
  let ctx: FsContext;
  beforeEach(async () => {
    dir = await makeTempDir();
    ctx = new FsContext(dir, true);
    await ctx.ready();
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });
  const text = (file: string) => readFile(file, "utf8").catch(() => "");

  it("writes an entry queued the moment the previous one resolved (the drain was ending): no entry waits for another", async () => {
    const file = path.join(dir, "log.jsonl");
    const log = new AppendLog(ctx, file);
    for (let n = 1; n <= 5; n++) await log.append(`{"n":${n}}`);
    await log.append('{"n":6}');
    await log.transaction((write) => write(['{"n":7}']));
    expect((await text(file)).split("\n").filter(Boolean)).toHaveLength(7);
  });

  it("a transaction writes its lines in queue order: after the lines queued before it, before those queued after", async () => {
    const file = path.join(dir, "log.jsonl");
    const log = new AppendLog(ctx, file);
    const before = log.append('{"n":1}');
    const inside = log.transaction(async (write) => {
      // Queued while the transaction runs: written after it.
      void log.append('{"n":4}');
      await write(['{"n":2}', '{"n":3}']);
    });
    await Promise.all([before, inside]);
    await log.flush();
    expect(await text(file)).toBe('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
  });

  it("a transaction that throws writes nothing, refuses the lines queued after it, and runs onFailure", async () => {
    const file = path.join(dir, "log.jsonl");
    let failures = 0;
    const log = new AppendLog(ctx, file, () => failures++);
    await log.append('{"n":1}');
    const failing = log.transaction(async () => {
      throw new Error("the record write failed");
    });
    const after = log.append('{"n":9}');
    await expect(failing).rejects.toThrow("the record write failed");
    await expect(after).rejects.toThrow("the record write failed");
    expect(failures).toBe(1);
    // The log takes appends again.
    await log.append('{"n":2}');
    expect(await text(file)).toBe('{"n":1}\n{"n":2}\n');
  });
});
