import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFsStores } from "@flowrt/store-fs";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import { describe, expect, it } from "vitest";
import { createFlowHost } from "../host.js";
import { silentLogger } from "../logger.js";
import { settle } from "../testing/fixtures.js";
import { ledger, ledgerProviders } from "./testing/webhook-durable-flow.js";
import { alphaSignature, SECRET } from "./testing/webhook-harness.js";

const CHILD = fileURLToPath(new URL("./testing/webhook-durable-child.ts", import.meta.url));

/** Starts the child host and resolves with its base URL once it listens. */
function startChild(dir: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", CHILD, dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const listening = /listening (\S+)/.exec(out);
      if (listening) resolve({ child, url: listening[1]! });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", () => reject(new Error(`child exited before listening: ${out}\n${err}`)));
  });
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

async function deliver(url: string, type: string, id: string, entry: string): Promise<string> {
  const body = JSON.stringify({ id, type, entry });
  const response = await fetch(`${url}/ledger/webhooks/stripe`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": alphaSignature(body) },
    body,
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { requestId: string }).requestId;
}

describe("durable webhook bindings", () => {
  it("a delivery acknowledged with 202 runs after its host is killed before running it; a non-durable one does not", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flowrt-webhook-durable-"));
    try {
      const { child, url } = await startChild(dir);
      let durableId: string;
      let plainId: string;
      try {
        durableId = await deliver(url, "entry.durable", "evt_d", "credit-100");
        plainId = await deliver(url, "entry.plain", "evt_p", "credit-5");
      } finally {
        await kill(child);
      }

      const stores = createFsStores({ dir });
      // The dead host acknowledged both and ran neither.
      for (const id of [durableId, plainId]) {
        expect(await stores.requests.get(id)).toMatchObject({ status: "queued" });
        expect((await stores.requests.readEvents(id)).map((e) => e.type)).toEqual([]);
      }
      expect(await stores.requests.get(durableId)).toMatchObject({ durable: true });

      const host = createFlowHost({
        flows: [ledger],
        stores,
        logger: silentLogger,
        leaseMs: 400,
        recoveryIntervalMs: 100,
        webhookProviders: ledgerProviders(alphaWebhookVerifier(SECRET)),
      });
      await host.start();
      const durable = await settle(host, durableId);
      expect(durable.record).toMatchObject({
        status: "completed",
        output: { entry: "credit-100", applied: 1 },
        metadata: { origin: "webhook", webhook: { provider: "stripe", deliveryId: "evt_d" } },
      });
      expect(durable.events.filter((e) => e.type === "request.completed")).toHaveLength(1);

      // Nobody promised to finish the plain one: once its age passes the lease it is failed, never run.
      const plain = await settle(host, plainId);
      expect(plain.record.status).toBe("failed");
      expect(plain.record.output).toBeUndefined();
      expect(plain.events.map((e) => e.type)).not.toContain("request.started");
      // Its failure event says what the record says.
      const failed = plain.events.find((e) => e.type === "request.failed");
      expect(failed?.data.error).toEqual(plain.record.error);
      // A clear code of its own, not an internal error (issue 19): the host was lost, and nothing resumes it.
      expect(plain.record.error).toEqual({
        code: "host-lost",
        message:
          "The host running this request stopped before it finished; the request was not durable, so no other host resumed it.",
        retryable: false,
      });

      await host.close();
      await stores.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
