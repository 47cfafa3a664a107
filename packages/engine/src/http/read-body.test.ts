import { hasErrorCode } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { discardBody, readBody } from "./read-body.js";

/** A body of `chunks`, recording how many were taken and whether the iterator was ever returned early. */
function source(chunks: Array<Uint8Array | string>, failAt?: number) {
  const seen = { taken: 0, returned: false };
  const body: AsyncIterable<Uint8Array | string> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        if (failAt !== undefined && seen.taken === failAt) throw new Error("socket hang up");
        if (seen.taken >= chunks.length) return { done: true, value: undefined };
        return { done: false, value: chunks[seen.taken++]! };
      },
      return: async () => {
        seen.returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { body, seen };
}

const bytes = (text: string) => Buffer.from(text);
const chunked = { "transfer-encoding": "chunked" };

async function refusal(promise: Uint8Array | Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
}

describe("readBody", () => {
  it("reads every chunk into the exact bytes, strings as UTF-8", async () => {
    const { body } = source([bytes('{"a":'), '"é"}']);
    const read = await readBody({ headers: chunked, body }, 1024);
    expect(Buffer.from(read).toString()).toBe('{"a":"é"}');
  });

  it("reads nothing of a message that declares no body (no Content-Length, or 0, and no Transfer-Encoding)", async () => {
    for (const headers of [{}, { "content-length": "0" }]) {
      const { body, seen } = source([bytes("ignored")]);
      expect((await readBody({ headers, body }, 1024)).byteLength).toBe(0);
      expect(seen.taken).toBe(0);
    }
  });

  it("refuses a body over the limit with 413 and the limit, holding at most the limit and one chunk, then reads off the rest", async () => {
    const { body, seen } = source([bytes("a".repeat(40)), bytes("b".repeat(40)), bytes("c".repeat(40))]);
    const error = await refusal(readBody({ headers: chunked, body }, 64));
    expect(hasErrorCode(error, "payload-too-large")).toBe(true);
    expect(error).toMatchObject({ details: { limit: 64 } });
    // Every chunk was taken off the connection (so the client sees the 413), and the iterator never returned.
    expect(seen).toEqual({ taken: 3, returned: false });
  });

  it("accepts a body of exactly the limit", async () => {
    const { body } = source([bytes("a".repeat(32)), bytes("b".repeat(32))]);
    expect((await readBody({ headers: chunked, body }, 64)).byteLength).toBe(64);
  });

  it("refuses from a Content-Length over the limit without holding any of the body", async () => {
    const { body, seen } = source([bytes("x".repeat(100))]);
    const error = await refusal(readBody({ headers: { "content-length": "100" }, body }, 10));
    expect(hasErrorCode(error, "payload-too-large")).toBe(true);
    expect(seen.taken).toBe(1); // read off and dropped
  });

  it("holds bytes already read to the same limit", async () => {
    const error = await refusal(readBody({ headers: {}, rawBody: bytes("x".repeat(11)) }, 10));
    expect(hasErrorCode(error, "payload-too-large")).toBe(true);
    const kept = bytes("x".repeat(10));
    expect(await readBody({ headers: {}, rawBody: kept }, 10)).toBe(kept);
  });

  it("refuses a body that ends short of its Content-Length with 400", async () => {
    const { body } = source([bytes("abc")]);
    const error = await refusal(readBody({ headers: { "content-length": "5" }, body }, 1024));
    expect(hasErrorCode(error, "invalid-request")).toBe(true);
    expect((error as Error).message).toBe("The request body does not match its Content-Length.");
  });

  it("a body that fails to read (the client went away) is 400; a coded error of the body keeps its code", async () => {
    const { body } = source([bytes("abc"), bytes("def")], 1);
    const error = await refusal(readBody({ headers: chunked, body }, 1024));
    expect(hasErrorCode(error, "invalid-request")).toBe(true);
    expect((error as Error).message).toBe("The request body could not be read.");

    const { FlowError } = await import("@flowrt/core");
    const coded: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new FlowError("unsupported-media-type", "not this one")),
      }),
    };
    const own = await refusal(readBody({ headers: chunked, body: coded }, 1024));
    expect(hasErrorCode(own, "unsupported-media-type")).toBe(true);
  });
});

describe("discardBody", () => {
  it("reads off a declared body and drops it; a body-less message or one already read is left alone", async () => {
    const declared = source([bytes("a"), bytes("b")]);
    await discardBody({ headers: chunked, body: declared.body });
    expect(declared.seen).toEqual({ taken: 2, returned: false });
    const none = source([bytes("a")]);
    await discardBody({ headers: {}, body: none.body });
    await discardBody({ headers: chunked, body: none.body, rawBody: bytes("a") });
    expect(none.seen.taken).toBe(0);
  });
});
