import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, describe, expect, test } from "vitest";
import { type ReferenceServer, startReferenceServer } from "./app.js";
import { signDevToken } from "./auth/dev-tokens.js";

// The development inspector as the reference app mounts it, through real HTTP on a socket.
const dirs: string[] = [];
const servers: ReferenceServer[] = [];
async function start(inspector?: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-inspector-"));
  dirs.push(dataDir);
  const server = await startReferenceServer({
    port: 0,
    dataDir,
    ...(inspector === undefined ? {} : { inspector }),
  });
  servers.push(server);
  return server;
}

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the inspector in the reference app", () => {
  test("serves its page and shows a signed-in user their own sessions, and no one else's", async () => {
    const server = await start();
    const ada = { authorization: `Bearer ${await signDevToken({ userId: "ada", orgId: "acme" })}` };
    const bob = { authorization: `Bearer ${await signDevToken({ userId: "bob", orgId: "acme" })}` };
    const page = await request(server.url).get("/api/flows/_inspector").expect(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const session = (
      await request(server.url).post("/api/flows/notebook/sessions").set(ada).send({}).expect(201)
    ).body.session.id as string;
    const listed = await request(server.url).get("/api/flows/_inspector/api/sessions").set(ada).expect(200);
    expect(JSON.stringify(listed.body)).toContain(session);
    const others = await request(server.url).get("/api/flows/_inspector/api/sessions").set(bob).expect(200);
    expect(JSON.stringify(others.body)).not.toContain(session);
    await request(server.url).get(`/api/flows/_inspector/api/sessions/${session}`).set(bob).expect(403);
    const anonymous = await request(server.url).get("/api/flows/_inspector/api/sessions").expect(401);
    expect(JSON.stringify(anonymous.body)).not.toContain(session);
  });

  test("is not there when the app is started with the inspector off", async () => {
    const server = await start(false);
    await request(server.url).get("/api/flows/_inspector").expect(404);
    await request(server.url).get("/api/flows/_inspector/api/flows").expect(404);
  });
});
