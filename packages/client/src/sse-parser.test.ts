import { describe, expect, it } from "vitest";
import { SseParser } from "./sse-parser.js";

function parseAll(chunks: string[]) {
  const parser = new SseParser();
  const messages = chunks.flatMap((chunk) => parser.push(chunk));
  return { parser, messages };
}

describe("SseParser", () => {
  it("reads id, event and data fields and dispatches on a blank line", () => {
    const { messages } = parseAll(['id: 7\nevent: resource_change\ndata: {"seq":7}\n\n']);
    expect(messages).toEqual([{ id: "7", event: "resource_change", data: '{"seq":7}' }]);
  });

  it("gives the same messages whatever the chunk boundaries", () => {
    const text = 'id: 1\nevent: text.delta\ndata: {"a":1}\n\n: ping\n\nid: 2\r\nevent: x\r\ndata: b\r\n\r\n';
    const whole = parseAll([text]).messages;
    expect(whole).toHaveLength(2);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(parseAll(chunks).messages).toEqual(whole);
    }
  });

  it("treats a CR at the end of one chunk and an LF at the start of the next as one line end", () => {
    const { messages } = parseAll(["data: a\r", "\ndata: b\r", "\n\r", "\n"]);
    expect(messages).toEqual([{ id: undefined, event: "message", data: "a\nb" }]);
  });

  it("accepts a lone CR as a line end", () => {
    expect(parseAll(["data: a\r\rdata: b\r\r"]).messages.map((m) => m.data)).toEqual(["a", "b"]);
  });

  it("joins several data lines with a newline and strips only one leading space", () => {
    const { messages } = parseAll(["data:first\ndata:  second\ndata\n\n"]);
    expect(messages[0]!.data).toBe("first\n second\n");
  });

  it("ignores comment lines such as heartbeats and unknown fields", () => {
    const { messages } = parseAll([": ping\n\n: ping\nfoo: bar\ndata: x\n\n"]);
    expect(messages).toEqual([{ id: undefined, event: "message", data: "x" }]);
  });

  it("does not dispatch a message cut off before its blank line, and forgets it on end()", () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\ndata: {"seq":1}\n\nid: 2\ndata: {"se')).toHaveLength(1);
    parser.end();
    expect(parser.lastEventId).toBe("1");
    // The next connection's bytes do not glue onto the cut message.
    expect(parser.push("data: fresh\n\n")).toEqual([{ id: "1", event: "message", data: "fresh" }]);
  });

  it("carries the last id to later messages and updates it from an id-only block", () => {
    const { parser, messages } = parseAll(["id: 3\ndata: a\n\ndata: b\n\nid: 9\n\n"]);
    expect(messages.map((m) => m.id)).toEqual(["3", "3"]);
    expect(parser.lastEventId).toBe("9");
  });

  it("ignores an id containing NUL and reads a numeric retry", () => {
    const { parser, messages } = parseAll(["retry: 2500\nid: a\0b\ndata: x\n\nretry: soon\n\n"]);
    expect(messages[0]!.id).toBeUndefined();
    expect(parser.retry).toBe(2500);
  });

  it("skips a byte order mark at the start of the stream", () => {
    expect(parseAll(["\uFEFFdata: x\n\n"]).messages).toEqual([
      { id: undefined, event: "message", data: "x" },
    ]);
  });
});
