import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReferenceServer } from "./app.js";
import { signDevToken } from "./auth/dev-tokens.js";

// The daily digest on a per-second cron (this file's own module graph reads FLOWRT_DIGEST_CRON when it loads the
// flows), through real HTTP on a socket: the schedule is listed for the user it runs as, and its run posts the
// last day's count to the org board, which the org's members see and another org does not.
process.env.FLOWRT_DIGEST_CRON = "* * * * * *";
const dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-digest-"));
let server: ReferenceServer;
let api: string;
const as = async (userId: string, orgId: string) => ({
  authorization: `Bearer ${await signDevToken({ userId, orgId })}`,
});

beforeAll(async () => {
  const { startReferenceServer } = await import("./app.js");
  server = await startReferenceServer({ port: 0, dataDir });
  api = `${server.url}/api/flows`;
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const boardTitles = async (auth: Record<string, string>) => {
  const session = (await request(api).post("/notebook/sessions").set(auth).send({}).expect(201)).body.session
    .id;
  const { body } = await request(api).get(`/sessions/${session}/resources/board`).set(auth).expect(200);
  return (body.items as { clientData: { title: string } }[]).map((item) => item.clientData.title);
};

describe("the daily digest", () => {
  test("is listed for the user it runs as, with its next tick, and for no one else", async () => {
    const { body } = await request(api)
      .get("/schedules")
      .set(await as("digest", "acme"))
      .expect(200);
    expect(body.schedules).toEqual([
      expect.objectContaining({ flowId: "notebook", name: "dailyDigest", nextTickAt: expect.any(String) }),
    ]);
    const other = await request(api)
      .get("/schedules")
      .set(await as("ada", "acme"))
      .expect(200);
    expect(other.body.schedules).toEqual([]);
  });

  test("posts the last day's count to the org board, seen by its members only", async () => {
    const ada = await as("ada", "acme");
    const session = (await request(api).post("/notebook/sessions").set(ada).send({}).expect(201)).body.session
      .id;
    for (const title of ["standup at 10", "ship it"]) {
      await request(api)
        .post("/notebook/actions/postToBoard")
        .set(ada)
        .send({ sessionId: session, input: { title } })
        .expect(202);
    }
    let titles: string[] = [];
    for (let i = 0; i < 100; i++) {
      titles = await boardTitles(ada);
      if (titles.some((title) => /^Daily digest: 2 posts .*\(member 2\)$/.test(title))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(titles).toContainEqual(
      expect.stringMatching(/^Daily digest: 2 posts in the last 24 hours \(member 2\)$/),
    );
    expect(await boardTitles(await as("carol", "globex"))).toEqual([]);
  });
});
