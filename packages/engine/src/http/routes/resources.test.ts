import { defineFlow, defineResourceCollection } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withHost } from "../../testing/fixtures.js";
import { createHttpHandler } from "../handler.js";
import type { HttpRequest } from "../types.js";

const post = (path: string, body: string): HttpRequest => ({
  method: "POST",
  path,
  url: path,
  query: {},
  headers: {},
  rawBody: Buffer.from(body),
});

describe("POST create: a seed that is not a valid JSON object (routing rule 6)", () => {
  const client = { state: { read: true }, content: { read: true, create: true } } as const;
  const dated = defineResourceCollection({
    pattern: "dated/*",
    scope: "session",
    stateSchema: z.object({ title: z.string().default(""), when: z.date().default(() => new Date(0)) }),
    client,
  });
  const owned = defineResourceCollection({
    pattern: "owned/*",
    scope: "session",
    stateSchema: z.object({ owner: z.string() }),
    client,
  });
  const flow = defineFlow({
    kind: "seeds",
    authentication: { requireUser: false, defaultUserId: "dev" },
    resources: { dated, owned },
  });

  it("is 400 invalid-seed-state naming the field, for a non-JSON default as for a missing required field", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const handle = createHttpHandler(host);
      const created = await handle(post("/seeds/sessions", "{}"));
      const sessionId = (created.body as { session: { id: string } }).session.id;
      for (const [ref, field] of [
        ["dated", "when"],
        ["owned", "owner"],
      ] as const) {
        const response = await handle(
          post(`/sessions/${sessionId}/resources/${ref}`, '{"topic":"a","content":"c"}'),
        );
        expect(response.status).toBe(400);
        expect(response.headers["content-type"]).toBe("application/problem+json");
        expect(response.body).toMatchObject({ status: 400, code: "invalid-seed-state", field });
        const address = { scope: "session" as const, scopeId: sessionId, bucket: "shared" };
        expect(await stores.resources.getState(address, `${ref}/a`)).toBeNull();
        expect(await stores.resources.getContent(address, `${ref}/a`)).toBeNull();
      }
    });
  });
});
