import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public surface", () => {
  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "createHmacVerifier",
      "createHs256JwtVerifier",
      "extractBearerToken",
    ]);
  });
});
