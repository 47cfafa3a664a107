import { FlowError } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { problemFor } from "./problem.js";

describe("problem bodies", () => {
  it("a server-side failure's detail is its code's catalogue text, never its own message", () => {
    const leaky = new FlowError(
      "store-error",
      "The store file /srv/data/sessions/b8/b8df.json is not valid JSON.",
      {
        retryable: true,
      },
    );
    expect(problemFor(leaky)).toEqual({
      type: "about:blank",
      title: "Service Unavailable",
      status: 503,
      code: "store-error",
      detail: "The store failed to complete an operation.",
      retryable: true,
    });
    expect(JSON.stringify(problemFor(new Error("SELECT * FROM secrets")))).not.toContain("secrets");
    expect(problemFor(new FlowError("host-not-started", "closed at /srv/app"))).toMatchObject({
      status: 503,
      detail: "The host was used before start() or after close().",
    });
  });

  it("a client error keeps its own message and public details", () => {
    const refused = new FlowError("invalid-seed-state", 'Field "owner" is required.', {
      details: { field: "owner", internal: "kept back" },
    });
    expect(problemFor(refused)).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      code: "invalid-seed-state",
      detail: 'Field "owner" is required.',
      field: "owner",
    });
  });
});
