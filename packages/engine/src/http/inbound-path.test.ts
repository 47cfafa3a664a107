import { describe, expect, it } from "vitest";
import { compileInboundPath } from "./inbound-path.js";

const matches = (path: string, pathname: string) => compileInboundPath(path).test(pathname);

describe("compileInboundPath (Express route syntax)", () => {
  it("matches literals whole, in any case, with one optional trailing slash", () => {
    expect(matches("/hooks/slash", "/hooks/slash")).toBe(true);
    expect(matches("/hooks/slash", "/HOOKS/Slash")).toBe(true);
    expect(matches("/hooks/slash", "/hooks/slash/")).toBe(true);
    expect(matches("/hooks/slash/", "/hooks/slash")).toBe(true);
    expect(matches("/hooks/slash", "/hooks/slash/x")).toBe(false);
    expect(matches("/hooks/slash", "/hooks/slashes")).toBe(false);
    expect(matches("/hooks/slash", "/pre/hooks/slash")).toBe(false);
    expect(matches("/a.b", "/aXb")).toBe(false);
  });

  it("`:name` takes one non-empty segment, `*name` one or more", () => {
    expect(matches("/hooks/:team/echo", "/hooks/acme/echo")).toBe(true);
    expect(matches("/hooks/:team/echo", "/hooks//echo")).toBe(false);
    expect(matches("/hooks/:team/echo", "/hooks/a/b/echo")).toBe(false);
    expect(matches("/hooks/*rest", "/hooks/a/b/c")).toBe(true);
    expect(matches("/hooks/*rest", "/hooks/")).toBe(false);
    expect(matches('/hooks/:"quoted name"', "/hooks/x")).toBe(true);
  });

  it("`{…}` is optional and `\\` escapes a reserved character", () => {
    expect(matches("/hooks{/:team}", "/hooks")).toBe(true);
    expect(matches("/hooks{/:team}", "/hooks/acme")).toBe(true);
    expect(matches("/hooks/\\(x\\)", "/hooks/(x)")).toBe(true);
  });

  it("refuses what Express could not route, saying where", () => {
    expect(() => compileInboundPath("/hooks/:")).toThrow("Missing parameter name at index 8");
    expect(() => compileInboundPath("/hooks/*")).toThrow(TypeError);
    expect(() => compileInboundPath("/hooks/(x)")).toThrow("Unexpected ( at index 7");
    expect(() => compileInboundPath("/hooks/x?")).toThrow("Unexpected ?");
    expect(() => compileInboundPath("/hooks{/x")).toThrow("expected }");
    expect(() => compileInboundPath("/hooks}")).toThrow("Unexpected }");
    expect(() => compileInboundPath('/hooks/:"open')).toThrow("Unterminated quote");
    expect(() => compileInboundPath("/hooks\\")).toThrow("Unexpected end after \\");
  });
});
