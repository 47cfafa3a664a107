import type { WebhookProviderDefinition } from "@flowrt/engine";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serve } from "../testing/serve.js";
import { inbox } from "../testing/webhook-flow.js";
import { API, as, expectNoStack, expectProblem } from "./testing/http.js";
import { open } from "./testing/lab-flows.js";
import { createSession, type Lab, serveLab } from "./testing/lab-server.js";
import { dumpStores } from "./testing/store-hooks.js";

/** Architecture §3, Errors: problem+json with a catalogue code everywhere, and the transport-level statuses. */

let s: Lab;
beforeAll(async () => {
  s = await serveLab();
});
afterAll(() => s.close());

describe("malformed JSON is 400 invalid-json on every route that reads a JSON body", () => {
  it.each([
    ["POST", "/open/sessions"],
    ["POST", "/open/actions/touch"],
    ["POST", "/sessions/:sid/resources/notes"],
    ["PATCH", "/sessions/:sid/resources/notes/a/content"],
  ])("%s %s", async (method, template) => {
    const sid = await createSession(s.url, "open", {}, { userId: "bob" });
    await request(s.url).post(`${API}/sessions/${sid}/resources/notes`).send({ topic: "a" }).expect(201);
    const before = await dumpStores(s.stores);
    // The last: valid JSON nested deeper than the 512 levels a body may hold.
    const tooDeep = `{"userId":"bob","input":${"[".repeat(600)}${"]".repeat(600)}}`;
    for (const body of ['{"a":', "{'single': 1}", "nul", "\u00ff\u00fe", tooDeep]) {
      const res = await request(s.url)
        [method === "POST" ? "post" : "patch"](`${API}${template.replace(":sid", sid)}`)
        .set("content-type", "application/json")
        .send(body);
      expectProblem(res, 400, "invalid-json");
    }
    expect(await dumpStores(s.stores)).toEqual(before);
  });
});

describe("nesting", () => {
  it("a body nested 500 levels deep is an ordinary body; 513 levels is 400 invalid-json naming the limit", async () => {
    const nested = (levels: number) => `${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}`;
    const ok = await request(s.url)
      .post(`${API}/open/actions/touch`)
      .set("content-type", "application/json")
      .send(`{"userId":"bob","input":{"key":"deep","title":"D"},"metadata":{"deep":${nested(498)}}}`);
    expect(ok.status).toBe(202);
    const refused = await request(s.url)
      .post(`${API}/open/actions/touch`)
      .set("content-type", "application/json")
      .send(`{"userId":"bob","metadata":{"deep":${nested(512)}}}`);
    expectProblem(refused, 400, "invalid-json");
    expect(refused.body.detail).toBe("The request body nests deeper than 512 levels.");
  });
});

describe("cross-site request forgery: a browser's cross-site write without a JSON body is 415", () => {
  it("session create, action, item create, content PATCH, DELETE, abort and retry refuse a form or text body marked Sec-Fetch-Site: cross-site (or same-site); nothing is written, nothing aborted", async () => {
    const sid = await createSession(s.url, "open", {}, { userId: "bob" });
    await request(s.url).post(`${API}/sessions/${sid}/resources/notes`).send({ topic: "a" }).expect(201);
    const held = await request(s.url)
      .post(`${API}/open/actions/hold`)
      .send({ userId: "bob", sessionId: sid, input: {} })
      .expect(202);
    const before = await dumpStores(s.stores);
    const requestId = held.body.requestId as string;
    const writes: Array<[string, string, string]> = [
      ["post", "/open/sessions", "userId=bob"],
      ["post", "/open/actions/touch", "userId=bob&input=x"],
      ["post", `/sessions/${sid}/resources/notes`, "topic=b"],
      ["patch", `/sessions/${sid}/resources/notes/a/content`, "content=x"],
      ["delete", `/sessions/${sid}/resources/notes/a`, ""],
      ["post", `/requests/${requestId}/abort`, ""],
      ["post", `/requests/${requestId}/retry`, ""],
    ];
    for (const site of ["cross-site", "same-site"]) {
      for (const [method, path, body] of writes) {
        for (const type of ["application/x-www-form-urlencoded", "text/plain", undefined]) {
          let call = (request(s.url) as unknown as Record<string, (url: string) => request.Test>)[method]!(
            `${API}${path}`,
          ).set("sec-fetch-site", site);
          if (type) call = call.set("content-type", type);
          const res = await call.send(body);
          expect([site, method, path, type, res.status, res.body.code]).toEqual([
            site,
            method,
            path,
            type,
            415,
            "unsupported-media-type",
          ]);
        }
      }
    }
    expect(await dumpStores(s.stores)).toEqual(before);
    expect((await s.stores.requests.get(requestId))?.status).toBe("running");
    // The same writes as JSON (which a browser sends cross-site only after a CORS preflight), or from the same
    // origin, or from no browser at all, are served.
    await request(s.url)
      .post(`${API}/open/sessions`)
      .set("sec-fetch-site", "cross-site")
      .send({ userId: "bob" })
      .expect(201);
    await request(s.url)
      .post(`${API}/sessions/${sid}/resources/notes`)
      .set("sec-fetch-site", "same-origin")
      .type("text")
      .send(JSON.stringify({ topic: "c" }))
      .expect(201);
    await request(s.url)
      .post(`${API}/requests/${requestId}/abort`)
      .set("sec-fetch-site", "cross-site")
      .set("content-type", "application/json")
      .expect(202);
  });
});

describe("cross-site request forgery from a browser that sends no fetch metadata (plain HTTP, older browsers)", () => {
  it("an Origin other than the host the request was sent to (or null) marks it cross-site: a text/plain action is 415 and nothing runs; the same origin, or JSON, is served", async () => {
    const sid = await createSession(s.url, "open", {}, { userId: "bob" });
    const before = await dumpStores(s.stores);
    const host = new URL(s.url).host;
    const post = (origin: string | undefined, type: string) => {
      let call = request(s.url).post(`${API}/open/actions/touch`).set("content-type", type);
      if (origin !== undefined) call = call.set("origin", origin);
      return call.send(JSON.stringify({ userId: "bob", sessionId: sid, input: { key: "x", title: "X" } }));
    };
    for (const origin of ["http://evil.example", "null", `https://${host}.evil.example`]) {
      const res = await post(origin, "text/plain");
      expect([origin, res.status, res.body.code]).toEqual([origin, 415, "unsupported-media-type"]);
    }
    expect(await dumpStores(s.stores)).toEqual(before);
    expect((await post(`http://${host}`, "text/plain")).status).toBe(202);
    expect((await post("http://evil.example", "application/json")).status).toBe(202);
    expect((await post(undefined, "text/plain")).status).toBe(202);
  });
});

describe("unknown routes and methods", () => {
  it("an unknown route is 404 not-found; a known path with another method is 405 with Allow", async () => {
    expectProblem(await request(s.url).get(`${API}/no/such/route/here`), 404, "not-found");
    expectProblem(await request(s.url).post(`${API}/sessions/x/state`), 405, "method-not-allowed");
    const put = await request(s.url).put(`${API}/sessions`);
    expect(expectProblem(put, 405, "method-not-allowed").allowed).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(put.headers.allow).toBe("GET, HEAD, OPTIONS");
  });

  it("OPTIONS on a known path is 204 with Allow (as Express answers it for its own routes); on an unknown one 404", async () => {
    const options = await request(s.url).options(`${API}/sessions/x/resources/notes`);
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe("GET, POST, HEAD, OPTIONS");
    expect(options.text).toBe("");
    expectProblem(await request(s.url).options(`${API}/no/such/route/here`), 404, "not-found");
  });
});

describe("body limit: 413 beyond it", () => {
  it("the default limit is 1 MiB", async () => {
    const atLimit = JSON.stringify({ userId: "bob", title: "x".repeat(1024 * 1024 - 30) });
    const padded = atLimit + " ".repeat(1024 * 1024 - Buffer.byteLength(atLimit));
    expect(Buffer.byteLength(padded)).toBe(1024 * 1024);
    await request(s.url)
      .post(`${API}/open/sessions`)
      .set("content-type", "application/json")
      .send(padded)
      .expect(201);
    const before = await dumpStores(s.stores);
    const over = await request(s.url)
      .post(`${API}/open/sessions`)
      .set("content-type", "application/json")
      .send(`${padded} `);
    expect(expectProblem(over, 413, "payload-too-large").limit).toBe(1024 * 1024);
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("a configured bodyLimit is honoured on every body-reading route", async () => {
    const small = await serveLab({ router: { bodyLimit: 64 } });
    try {
      const sid = await createSession(small.url, "open", {}, { userId: "bob" });
      const big = { topic: "a", content: "y".repeat(100) };
      const before = await dumpStores(small.stores);
      for (const res of [
        await request(small.url).post(`${API}/sessions/${sid}/resources/notes`).send(big),
        await request(small.url).post(`${API}/open/actions/touch`).send({ input: big, userId: "bob" }),
        await request(small.url).post(`${API}/inbox/webhooks/signed`).send(big),
      ]) {
        expect(expectProblem(res, 413, "payload-too-large").limit).toBe(64);
      }
      // No resource, request, event or webhook dispatch came of any refused body.
      expect(await dumpStores(small.stores)).toEqual(before);
    } finally {
      await small.close();
    }
  });
});

describe("401 rows of the Errors table not covered elsewhere", () => {
  it("a webhook verify that throws is 401, like one that answers false", async () => {
    const throwing: WebhookProviderDefinition = {
      verify: () => {
        throw new Error("verifier exploded with secret s3cr3t");
      },
      eventType: () => "ping",
    };
    const served: Served = await serve([inbox], { host: { webhookProviders: { signed: throwing } } });
    try {
      const res = await request(served.url).post(`${API}/inbox/webhooks/signed`).send({ type: "ping", n: 1 });
      expectProblem(res, 401, "webhook-verification-failed");
      expect(res.text).not.toContain("s3cr3t");
    } finally {
      await served.close();
    }
  });

  it("a resolver that throws a plain error fails closed with 401 and does not echo its message", async () => {
    const served: Served = await serve([open], {
      host: {
        resolvePrincipal: () => {
          throw new Error("jwt secret is hunter2");
        },
      },
    });
    try {
      const res = await request(served.url).post(`${API}/open/sessions`).send({});
      expectProblem(res, 401, "unauthorized");
      expect(res.text).not.toContain("hunter2");
    } finally {
      await served.close();
    }
  });
});

describe("an unexpected exception", () => {
  it("is a generic 500 problem without message or stack, and the process keeps serving", async () => {
    const sid = await createSession(s.url, "lab", as("ada"));
    s.hooks.beforeGetState = () => {
      throw new Error("connection string postgres://admin:pw@db at /srv/app/store.ts:42");
    };
    try {
      const res = await request(s.url).get(`${API}/sessions/${sid}/resources/notes/x`).set(as("ada"));
      const problem = expectProblem(res, 500, "internal-error");
      expect(problem.detail).toBe("An unexpected error occurred.");
      expect(res.text).not.toContain("postgres://");
      expectNoStack(res);
    } finally {
      delete s.hooks.beforeGetState;
    }
    await request(s.url).get(`${API}/sessions/${sid}`).set(as("ada")).expect(200);
    await request(s.url).get(`${API}/`).expect(200);
  });
});

describe("the whole Errors table, one request per row", () => {
  it("answers each specified status with a problem+json code (successes as plain JSON)", async () => {
    const sid = await createSession(s.url, "lab", as("ada"));
    const items = `${API}/sessions/${sid}/resources`;
    const ada = as("ada");
    const rows: Array<[number, request.Test, string | null]> = [
      [200, request(s.url).delete(`${items}/notes/none`).set(ada), null],
      [201, request(s.url).post(`${items}/notes`).set(ada).send({ topic: "one" }), null],
      [
        202,
        request(s.url)
          .post(`${API}/lab/actions/touch`)
          .set(ada)
          .send({ sessionId: sid, input: { key: "k", title: "t" } }),
        null,
      ],
      [400, request(s.url).post(`${items}/strict`).set(ada).send({ topic: "s" }), "invalid-seed-state"],
      [401, request(s.url).get(`${API}/sessions/${sid}`), "unauthorized"],
      [403, request(s.url).get(`${API}/sessions/${sid}`).set(as("eve")), "forbidden"],
      [403, request(s.url).get(`${items}/readOnly`).set(ada), "operation-not-permitted"],
      [404, request(s.url).get(`${items}/hidden`).set(ada), "resource-not-found"],
      [404, request(s.url).get(`${API}/sessions/unknown-session/manifest`), "session-not-found"],
      [
        409,
        request(s.url).post(`${API}/multi-a/actions/touch`).send({ sessionId: sid, input: {} }),
        "wrong-instance-session",
      ],
    ];
    for (const [status, pending, code] of rows) {
      const res = await pending;
      if (code === null) {
        expect(res.status).toBe(status);
        expect(res.headers["content-type"]).toMatch(/^application\/json/);
      } else {
        expectProblem(res, status, code);
      }
    }
    // The 409 topic row follows from the 201 above.
    expectProblem(
      await request(s.url).post(`${items}/notes`).set(ada).send({ topic: "one" }),
      409,
      "topic-exists",
    );
  });
});
