import { once } from "node:events";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import request from "supertest";
import { afterAll, describe, expect, test } from "vitest";
import { cleanUp, flowrt, tempDir } from "./testing/spawn-flowrt.js";

afterAll(cleanUp);

// Each case spawns its own process on its own port and directory, so they run side by side.
describe.concurrent("flowrt serve", () => {
  test("serves a TypeScript flows module on the port it prints, and stops cleanly on SIGTERM", async () => {
    const run = flowrt(["serve", "src/testing/cli-flows.ts", "--port", "0"]);
    const url = await run.listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/flows$/);
    const listed = await request(url).get("").expect(200);
    expect(listed.body.flows.map((f: { flowId: string }) => f.flowId)).toEqual(["notebook", "slow"]);
    await request(url).post("/notebook/sessions").send({ userId: "u1" }).expect(201);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  }, 20_000);

  test("--store fs:<dir> and --base-path: sessions land in that directory", async () => {
    const dir = join(tempDir(), "data");
    const run = flowrt([
      "serve",
      "src/testing/cli-flows.ts",
      "--port",
      "0",
      "--store",
      `fs:${dir}`,
      "--base-path",
      "/flows",
    ]);
    const url = await run.listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/flows$/);
    const created = await request(url).post("/notebook/sessions").send({ userId: "u1" }).expect(201);
    await request(url).get(`/sessions/${created.body.session.id}`).expect(200);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
  }, 20_000);

  test("refuses a non-loopback --host while flows have no authentication, naming them, and writes nothing", async () => {
    const dir = join(tempDir(), "data");
    const run = flowrt([
      "serve",
      "src/testing/cli-flows.ts",
      "--host",
      "0.0.0.0",
      "--port",
      "0",
      "--store",
      `fs:${dir}`,
    ]);
    expect(await run.exited).toBe(1);
    const { stdout, stderr } = run.output();
    expect(stderr).toContain(
      'Refusing to listen on 0.0.0.0: flows "notebook", "slow" have no authentication',
    );
    expect(stdout).not.toContain("listening");
    expect(existsSync(dir)).toBe(false);
  }, 20_000);

  test("binds a non-loopback --host when the module exports a resolver", async () => {
    const run = flowrt([
      "serve",
      "src/testing/cli-flows-with-resolver.ts",
      "--host",
      "0.0.0.0",
      "--port",
      "0",
    ]);
    const url = await run.listening;
    const port = new URL(url).port;
    const local = `http://127.0.0.1:${port}/api/flows`;
    await request(local).post("/notebook/sessions").send({ userId: "u1" }).expect(401);
    const created = await request(local)
      .post("/notebook/sessions")
      .set("x-user-id", "ada")
      .send({})
      .expect(201);
    expect(created.body.session.userId).toBe("ada");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  }, 20_000);

  test("usage mistakes exit 1 with a one-line message", async () => {
    const badStore = flowrt(["serve", "src/testing/cli-flows.ts", "--store", "redis:x"]);
    const missing = flowrt(["serve", "src/testing/nope.ts"]);
    expect(await badStore.exited).toBe(1);
    expect(badStore.output().stderr).toBe(
      'flowrt: Unknown --store "redis:x": use memory, fs:<dir> or postgres:<url>.\n',
    );
    expect(await missing.exited).toBe(1);
    expect(missing.output().stderr).toMatch(/^flowrt: No flows module at .*nope\.ts\.\n$/);
  }, 20_000);

  test("a store package that is not installed is named with the command that installs it, and exits 1", async () => {
    const memory = flowrt(["serve", "src/testing/cli-flows.ts", "--port", "0"], { withoutStores: true });
    const postgres = flowrt(
      ["serve", "src/testing/cli-flows.ts", "--port", "0", "--store", "postgres://127.0.0.1/flowrt"],
      { withoutStores: true },
    );
    expect(await memory.exited).toBe(1);
    expect(memory.output()).toEqual({
      stdout: "",
      stderr:
        "flowrt: This store needs @flowrt/store-memory, which is not installed: npm install @flowrt/store-memory (beside @flowrt/cli).\n",
    });
    expect(await postgres.exited).toBe(1);
    expect(postgres.output().stderr).toBe(
      "flowrt: This store needs @flowrt/store-postgres, which is not installed: npm install @flowrt/store-postgres (beside @flowrt/cli).\n",
    );
  }, 20_000);

  test("startup errors exit 1 with a one-line message too: a module that throws when loaded, a port in use", async () => {
    const throwing = join(tempDir(), "throws.mjs");
    writeFileSync(throwing, 'throw new RangeError("boom at load");\n');
    const busyServer = createServer().listen(0, "127.0.0.1");
    await once(busyServer, "listening");
    try {
      const port = (busyServer.address() as AddressInfo).port;
      const loaded = flowrt(["serve", throwing]);
      // A module with a resolver: one without logs at start that its flows are open, a line of its own.
      const busy = flowrt(["serve", "src/testing/cli-flows-with-resolver.ts", "--port", String(port)]);
      expect(await loaded.exited).toBe(1);
      expect(loaded.output().stderr).toBe("flowrt: RangeError: boom at load\n");
      expect(await busy.exited).toBe(1);
      expect(busy.output().stderr).toMatch(/^flowrt: Error: listen EADDRINUSE[^\n]*\n$/);
    } finally {
      busyServer.close();
    }
  }, 20_000);
});
