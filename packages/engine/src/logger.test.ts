import { defineFlow } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFlowHost } from "./host.js";
import { createLogger, hostLogger, silentLogger } from "./logger.js";

function capture() {
  const lines: string[] = [];
  return { destination: { write: (line: string) => void lines.push(line) }, lines };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the default logger", () => {
  it("writes pino's fields as one JSON line: level number, time, pid, hostname, bindings, fields, msg", () => {
    const { destination, lines } = capture();
    const logger = createLogger({ destination }).child({ reqId: "r-1" });
    logger.info({ n: 3 }, "indexed");
    logger.warn("bare message");
    expect(lines.every((line) => line.endsWith("\n"))).toBe(true);
    const [first, second] = lines.map((line) => JSON.parse(line));
    expect(first).toMatchObject({ level: 30, reqId: "r-1", n: 3, msg: "indexed", pid: process.pid });
    expect(typeof first.time).toBe("number");
    expect(typeof first.hostname).toBe("string");
    expect(second).toMatchObject({ level: 40, reqId: "r-1", msg: "bare message" });
  });

  it("serializes err with type, message and stack (and a bare Error as err)", () => {
    const { destination, lines } = capture();
    const logger = createLogger({ destination });
    logger.error({ err: new TypeError("bad thing") }, "failed");
    logger.error(new RangeError("out"));
    const [first, second] = lines.map((line) => JSON.parse(line));
    expect(first.err).toMatchObject({ type: "TypeError", message: "bad thing" });
    expect(first.err.stack).toContain("bad thing");
    expect(second.err).toMatchObject({ type: "RangeError", message: "out" });
  });

  it("writes from info up by default; FLOWRT_LOG_LEVEL and the level option move the threshold", () => {
    const { destination, lines } = capture();
    const info = createLogger({ destination });
    info.debug("dropped");
    info.info("kept");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["kept"]);

    vi.stubEnv("FLOWRT_LOG_LEVEL", "debug");
    lines.length = 0;
    createLogger({ destination }).debug("now kept");
    createLogger({ destination, level: "error" }).warn("dropped by the option");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["now kept"]);
  });

  it("never throws on a field JSON cannot hold", () => {
    const { destination, lines } = capture();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    createLogger({ destination }).info({ big: 10n, cyclic }, "odd");
    expect(JSON.parse(lines[0]!)).toMatchObject({ big: "10", cyclic: { self: "[Circular]" } });
  });
});

describe("the host's logger option", () => {
  const flow = defineFlow({ kind: "quiet", authentication: { requireUser: false, defaultUserId: "u" } });

  it("logger: false is silent; a given logger is used as it is", () => {
    expect(createFlowHost({ flows: [flow], stores: createMemoryStores(), logger: false }).logger).toBe(
      silentLogger,
    );
    const { destination } = capture();
    const mine = createLogger({ destination });
    expect(createFlowHost({ flows: [flow], stores: createMemoryStores(), logger: mine }).logger).toBe(mine);
  });

  it("refuses a logger written for the old (message, data) shape without child()", () => {
    const old = { debug() {}, info() {}, warn() {}, error() {} };
    expect(() => hostLogger(old as never, undefined)).toThrow(/old \(message, data\) shape/);
  });
});
