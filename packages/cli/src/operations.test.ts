import { readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { createFsStores } from "@flowrt/store-fs";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { cleanUp, flowrt, packageDir, tempDir } from "./testing/spawn-flowrt.js";

afterAll(cleanUp);

const DATABASE_URL = process.env.DATABASE_URL;

/** A local port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function createSession(url: string): Promise<string> {
  const response = await fetch(`${url}/notebook/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ userId: "u1" }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { session: { id: string } }).session.id;
}

/** The sessions an fs store folder holds (read after the server stopped). */
async function sessionsIn(dir: string): Promise<number> {
  const stores = createFsStores({ dir });
  try {
    return (await stores.sessions.list({})).total;
  } finally {
    await stores.close();
  }
}

describe.concurrent("flowrt: version, environment, env file", () => {
  test("--version and -v print the package's version and exit 0", async () => {
    const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-v"]) {
      const run = flowrt([flag]);
      expect(await run.exited).toBe(0);
      expect(run.output()).toEqual({ stdout: `${version}\n`, stderr: "" });
    }
  }, 20_000);

  test("PORT, HOST and FLOWRT_STORE come from the environment", async () => {
    const port = await freePort();
    const dir = join(tempDir(), "data");
    const run = flowrt(["serve", "src/testing/cli-flows.ts"], {
      env: { PORT: String(port), HOST: "127.0.0.1", FLOWRT_STORE: `fs:${dir}` },
    });
    const url = await run.listening;
    expect(url).toBe(`http://127.0.0.1:${port}/api/flows`);
    await createSession(url);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(await sessionsIn(dir)).toBe(1);
  }, 20_000);

  test("flags win over the environment: --port over PORT, --store over FLOWRT_STORE and DATABASE_URL", async () => {
    const port = await freePort();
    const dir = join(tempDir(), "env-store");
    const flagged = join(tempDir(), "flag-store");
    const run = flowrt(["serve", "src/testing/cli-flows.ts", "--port", "0", "--store", `fs:${flagged}`], {
      env: {
        PORT: String(port),
        FLOWRT_STORE: `fs:${dir}`,
        DATABASE_URL: "postgres://nobody:secret@127.0.0.1:1/none",
      },
    });
    const url = await run.listening;
    expect(new URL(url).port).not.toBe(String(port));
    await createSession(url);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(await sessionsIn(flagged)).toBe(1);
    expect(await sessionsIn(dir)).toBe(0);
  }, 20_000);

  test("DATABASE_URL alone serves on PostgreSQL: a wrong port names host, port, database and user, never the password", async () => {
    const port = await freePort();
    const run = flowrt(["serve", "src/testing/cli-flows.ts", "--port", "0"], {
      env: { DATABASE_URL: `postgres://ada:hunter2-secret@127.0.0.1:${port}/notes` },
    });
    expect(await run.exited).toBe(1);
    const { stdout, stderr } = run.output();
    expect(stdout).toBe("");
    expect(stderr).toContain(`127.0.0.1:${port}, database "notes", user "ada"`);
    expect(stderr).toContain("check that PostgreSQL is running and listens on that host and port");
    expect(stderr).not.toContain("hunter2-secret");
    expect(stderr).not.toContain("try again");
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  }, 20_000);

  test.skipIf(!DATABASE_URL)(
    "DATABASE_URL alone serves on a reachable PostgreSQL",
    async () => {
      const schema = `flowrt_cli_${process.pid}_${Date.now()}`;
      const url = new URL(DATABASE_URL!);
      url.searchParams.set("schema", schema);
      const run = flowrt(["serve", "src/testing/cli-flows.ts", "--port", "0"], {
        env: { DATABASE_URL: url.toString() },
      });
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      try {
        const served = await run.listening;
        await createSession(served);
        await admin.connect();
        const rows = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".flowrt_sessions`);
        expect(rows.rows[0]).toEqual({ n: 1 });
        run.child.kill("SIGTERM");
        expect(await run.exited).toBe(0);
      } finally {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
        await admin.end().catch(() => {});
      }
    },
    30_000,
  );

  test("a DATABASE_URL that is not postgres:// is refused without echoing it", async () => {
    const run = flowrt(["serve", "src/testing/cli-flows.ts"], {
      env: { DATABASE_URL: "mysql://root:topsecret@db/app" },
    });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toBe(
      "flowrt: DATABASE_URL is not a postgres:// URL: flowrt's database store is PostgreSQL. Set FLOWRT_STORE (or --store) to choose another store.\n",
    );
  }, 20_000);

  test("--env-file fills what the environment does not set; a variable already set is kept", async () => {
    const port = await freePort();
    const dir = join(tempDir(), "from-file");
    const file = join(tempDir(), "app.env");
    writeFileSync(file, `# the app's defaults\nPORT=${port}\nFLOWRT_STORE="fs:${dir}"\nHOST=127.0.0.1\n`);
    const run = flowrt(["serve", "src/testing/cli-flows.ts", "--env-file", file]);
    const url = await run.listening;
    expect(url).toBe(`http://127.0.0.1:${port}/api/flows`);
    await createSession(url);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(await sessionsIn(dir)).toBe(1);

    const other = await freePort();
    const kept = flowrt(["serve", "src/testing/cli-flows.ts", "--env-file", file], {
      env: { PORT: String(other) },
    });
    expect(new URL(await kept.listening).port).toBe(String(other));
    kept.child.kill("SIGTERM");
    expect(await kept.exited).toBe(0);
  }, 30_000);

  test("--env-file naming no file stops before serving, naming the file", async () => {
    // Node itself checks an `--env-file` file wherever the flag stands (after the script name too), and exits 9
    // with "<file>: not found" before flowrt runs; flowrt's own check says "no such file" where Node does not.
    const run = flowrt(["serve", "src/testing/cli-flows.ts", "--env-file", "no-such.env"]);
    expect(await run.exited).not.toBe(0);
    const { stdout, stderr } = run.output();
    expect(stdout).toBe("");
    expect(stderr).toMatch(/no-such\.env: (not found|no such file)/);
  }, 20_000);
});

describe("flowrt serve: SIGTERM drains", () => {
  test("/readyz turns 503, new work is refused, the durable request still running is left and the next start completes it; exit 0", async () => {
    const dir = join(tempDir(), "jobs");
    const first = flowrt(
      [
        "serve",
        "src/testing/cli-flows-durable.ts",
        "--port",
        "0",
        "--store",
        `fs:${dir}`,
        "--grace-ms",
        "1500",
      ],
      { env: { FLOWRT_TEST_HOLD: "1" } },
    );
    const url = await first.listening;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const post = () =>
      fetch(`${url}/jobs/actions/step`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-user-id": "ada" },
        body: JSON.stringify({ input: { label: "kept" } }),
      });
    const accepted = await post();
    expect(accepted.status).toBe(202);
    const { requestId } = (await accepted.json()) as { requestId: string };
    await first.printed(new RegExp(`holding ${requestId}`));

    const began = Date.now();
    first.child.kill("SIGTERM");
    await first.printed(/SIGTERM, draining/);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { draining: true } });
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: "host-draining" });

    expect(await first.exited).toBe(0);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1_400);
    // Nothing is left listening on the port.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const second = flowrt([
      "serve",
      "src/testing/cli-flows-durable.ts",
      "--port",
      "0",
      "--store",
      `fs:${dir}`,
    ]);
    const next = await second.listening;
    let status = "";
    let output: unknown;
    for (let i = 0; i < 100 && status !== "completed"; i++) {
      const response = await fetch(`${next}/requests/${requestId}`, { headers: { "x-user-id": "ada" } });
      ({ status, output } = (
        (await response.json()) as { request: { status: string; output: unknown } }
      ).request);
      if (status !== "completed") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe("completed");
    expect(output).toMatchObject({ label: "kept", pid: second.child.pid });
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
  }, 40_000);
});
