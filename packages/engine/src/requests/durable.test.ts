import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFsStores } from "@flowrt/store-fs";
import { describe, expect, it } from "vitest";
import { createFlowHost } from "../host.js";
import { silentLogger } from "../logger.js";
import { durableFlow, durableRequest, durableSession } from "../testing/durable-flow.js";
import { settle } from "../testing/fixtures.js";

const CHILD = fileURLToPath(new URL("../testing/durable-child.ts", import.meta.url));

/** Runs the child until it prints `running <id>` (it is inside the handler), then SIGKILLs it. */
function runAndKill(dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", CHILD, dir], {
      env: { ...process.env, FLOWRT_TEST_HANG: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const running = /running (\S+)/.exec(out);
      if (running) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (_code, signal) => {
      const running = /running (\S+)/.exec(out);
      if (signal === "SIGKILL" && running) resolve(running[1]!);
      else reject(new Error(`child ended without reaching the handler: ${out}\n${err}`));
    });
  });
}

describe("durable work", () => {
  it("a host killed mid-request leaves it to a new host over the same fs store, which completes it exactly once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flowrt-durable-"));
    try {
      const requestId = await runAndKill(dir);
      const stores = createFsStores({ dir });
      const before = await stores.requests.get(requestId);
      expect(before?.status).toBe("running");
      expect(before?.durable).toBe(true);

      const host = createFlowHost({
        flows: [durableFlow],
        stores,
        logger: silentLogger,
        leaseMs: 400,
        recoveryIntervalMs: 100,
      });
      await host.start();
      const { record, events } = await settle(host, requestId);
      expect(record.status).toBe("completed");
      // The first attempt ran in the killed host, the second here.
      expect(record.output).toEqual({ label: "x", attempts: 2 });
      expect(events.filter((e) => e.type === "request.completed")).toHaveLength(1);
      expect(events.filter((e) => e.type === "request.failed")).toHaveLength(0);

      // Later recovery passes never run it again.
      await new Promise((r) => setTimeout(r, 600));
      const after = await stores.requests.get(requestId);
      expect(after?.version).toBe(record.version);
      expect((await stores.requests.readEvents(requestId)).length).toBe(events.length);
      await host.close();
      await stores.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("a durable request still queued when its host stopped is run by the next host", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flowrt-durable-"));
    try {
      const first = createFsStores({ dir });
      await first.sessions.create(durableSession());
      await first.requests.create(
        durableRequest({ id: "r-queued", status: "queued", input: { label: "q" }, durable: true }),
      );
      await first.close();

      const stores = createFsStores({ dir });
      const host = createFlowHost({
        flows: [durableFlow],
        stores,
        logger: silentLogger,
        recoveryIntervalMs: 0,
      });
      await host.start();
      const { record } = await settle(host, "r-queued");
      expect(record.status).toBe("completed");
      expect(record.output).toEqual({ label: "q", attempts: 1 });
      await host.close();
      await stores.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
