import { describe, expect, test } from "vitest";
import { isLoopbackHost, urlHost } from "./loopback.js";

describe("isLoopbackHost", () => {
  test.each([
    "localhost",
    "LOCALHOST",
    "127.0.0.1",
    "127.1.2.3",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
  ])("%s is loopback", (host) => expect(isLoopbackHost(host)).toBe(true));
  test.each([
    "0.0.0.0",
    "::",
    "192.168.1.4",
    "10.0.0.1",
    "example.com",
    "localhost.example.com",
    "128.0.0.1",
    "::ffff:10.0.0.1",
    "",
  ])("%s is not loopback", (host) => expect(isLoopbackHost(host)).toBe(false));
});

test("urlHost brackets IPv6 addresses only", () => {
  expect(urlHost("::1")).toBe("[::1]");
  expect(urlHost("127.0.0.1")).toBe("127.0.0.1");
  expect(urlHost("localhost")).toBe("localhost");
});
